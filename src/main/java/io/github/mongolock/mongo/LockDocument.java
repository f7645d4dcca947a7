package io.github.mongolock.mongo;

import io.github.mongolock.LockException;
import java.util.Date;
import java.util.List;
import org.bson.Document;

/**
 * The lock document's field names, as {@link MongoLockStore}'s class comment draws them, and the reading of
 * their values. Every class of the store names a field through here, so the document is spelt in one place,
 * and a document mongolock did not write fails everywhere with the same message.
 */
final class LockDocument {

    static final String ID = "_id";
    static final String OWNER = "owner";
    static final String HOLDS = "holds";
    static final String VERSION = "version";
    static final String TOKEN = "token";
    static final String BEAT = "beat";
    static final String LEASE_ID = "leaseId";
    static final String LEASE_MS = "leaseMs";
    static final String ACQUIRED_AT = "acquiredAt";
    static final String RENEWED_AT = "renewedAt";
    static final String QUEUE = "queue";
    static final String RELEASED_AT = "releasedAt";
    static final String QUEUE_HEAD = QUEUE + ".0";
    /** Database clock, when the lock was last left free (for the idle clean-up, see {@link IdleLockCleaner}). */
    static final String FREED_AT = "freedAt";

    /**
     * The one document of the collection that is not a lock: its {@code _id} is no string, so no lock name
     * can be it. It keeps the {@value #TOKEN_FLOOR} (every lock created from now on starts above it) and when
     * the next idle clean-up is due ({@value #CLEAN_UP_DUE_AT}, by {@value #CLEAN_UP_BY}).
     */
    static final Document COLLECTION_STATE_ID = new Document("mongolock", "collection");
    /** The highest token of any lock document the idle clean-up removed. */
    static final String TOKEN_FLOOR = "tokenFloor";
    /**
     * On a lock document created by an acquire, until the last release of a holder whose grant applied the token
     * floor: every grant of it reads the floor and raises its token above it first ({@link TokenFloor}).
     */
    static final String TOKEN_PENDING = "tokenPending";
    static final String CLEAN_UP_DUE_AT = "cleanUpDueAt";
    static final String CLEAN_UP_BY = "cleanUpBy";
    /** The last release by an operator: which acquisition it ended, who, when and why (for people and the holder). */
    static final String REVOKED_OWNER = "revokedOwner";
    static final String REVOKED_BY = "revokedBy";
    static final String REVOKED_AT = "revokedAt";
    static final String REVOKED_REASON = "revokedReason";
    /** The lock document's session: the id of the session it is held under (absent when free or kept). */
    static final String SESSION = "session";
    /**
     * The {@value #LEASE_MS} a lock held under a session shows to an earlier version of mongolock, which watches
     * {@code beat} and would otherwise take the lock over after one lease, since session locks are never renewed:
     * a hundred years, so an earlier version's waiter never takes it over (its watch saturates) and its fast path
     * never fires. The session's own lease is in the session document.
     */
    static final long EARLIER_VERSIONS_LEASE_MS = java.time.Duration.ofDays(36_500).toMillis();
    /**
     * Starts the lease id of an acquisition held under a session; "s" is no hex digit and not
     * {@value #BEAT_RENEWED}, so an earlier version's lease ids never start this way. A lock is a session lock only
     * when it has both this lease id and a {@value #SESSION}.
     */
    static final String SESSION_HELD = "s";

    // The session document: {_id: {mongolock: "session", id}, manager, state, beat, leaseMs, checks, dates}.
    static final String STATE = "state";
    static final String LIVE = "live";
    static final String ENDED = "ended";
    /** Moved by an operator's change to one of the session's locks: its manager then checks them. */
    static final String CHECKS = "checks";
    static final String MANAGER = "manager";
    static final String STARTED_AT = "startedAt";
    static final String ENDED_AT = "endedAt";
    static final String ENDED_BY = "endedBy";

    /** A session document's {@code _id}: a document, like the collection's state, so no lock name can be it. */
    static Document sessionId(String session) {
        return new Document("mongolock", "session").append("id", session);
    }

    /** The session a {@link #sessionId} names, or null when {@code id} is not a session document's {@code _id}. */
    static String sessionOf(Object id) {
        return id instanceof Document key && "session".equals(key.get("mongolock")) && key.get("id") instanceof String session
                ? session : null;
    }

    /** The database's time, added by the store's aggregation to the document it reads. */
    static final String SERVER_NOW = "serverNow";

    /**
     * Starts every lease id this version writes. Its holders renew {@code beat}; a lease id without it
     * belongs to a holder of the earlier version, which renews {@code renewedAt} only.
     */
    static final String BEAT_RENEWED = "b";

    /**
     * Starts the lease id of a lease kept for a minimum hold ({@link MongoLockStore#releaseKeeping}); it starts with
     * {@value #BEAT_RENEWED} too ("k" is no hex digit, so no other lease id starts this way). Only such a
     * lease may be ended by the database's clock reading {@code releasedAt}: a holder of the earlier version
     * that takes a kept lock over leaves {@code releasedAt} in place, and its own lease must not end by it.
     */
    static final String KEPT = BEAT_RENEWED + "k";

    private LockDocument() {
    }

    /** The managers queued for the lock, in arrival order; empty when the field is absent. */
    static List<?> queue(Document state) {
        return state.get(QUEUE) instanceof List<?> queue ? queue : List.of();
    }

    /**
     * The database's time read with the document, or null: FerretDB 1.24 neither refuses nor evaluates
     * {@code $$NOW} in {@code $addFields}, it returns the string "$$NOW", and a server without the field
     * must cost only the fast path.
     */
    static Date serverNow(Document state) {
        return state.get(SERVER_NOW) instanceof Date now ? now : null;
    }

    static long number(Document document, String field) {
        Object value = document.get(field);
        if (value instanceof Number number) {
            return number.longValue();
        }
        throw new LockException("Lock document " + document.get(ID) + " has no numeric \"" + field
                + "\" (found " + value + "): the collection holds documents mongolock did not write.");
    }
}
