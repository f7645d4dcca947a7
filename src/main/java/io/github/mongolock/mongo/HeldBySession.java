package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gt;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Filters.regex;
import static io.github.mongolock.mongo.LockDocument.BEAT;
import static io.github.mongolock.mongo.LockDocument.HOLDS;
import static io.github.mongolock.mongo.LockDocument.ID;
import static io.github.mongolock.mongo.LockDocument.LEASE_ID;
import static io.github.mongolock.mongo.LockDocument.LEASE_MS;
import static io.github.mongolock.mongo.LockDocument.LIVE;
import static io.github.mongolock.mongo.LockDocument.OWNER;
import static io.github.mongolock.mongo.LockDocument.RENEWED_AT;
import static io.github.mongolock.mongo.LockDocument.SESSION;
import static io.github.mongolock.mongo.LockDocument.SESSION_HELD;
import static io.github.mongolock.mongo.LockDocument.STATE;
import static io.github.mongolock.mongo.LockDocument.VERSION;
import static io.github.mongolock.mongo.LockDocument.number;
import static io.github.mongolock.mongo.LockDocument.serverNow;
import static io.github.mongolock.mongo.MongoLockStore.LONG_AGO;

import io.github.mongolock.core.LeaseWatch;
import io.github.mongolock.core.Sighting;
import java.time.Duration;
import java.util.Collection;
import java.util.Date;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The state a waiter watches of a lock held under a session: the lock's own state (any re-entry, release or
 * grant moves its {@code version}) and its session's {@code beat} (every renewal moves it). Equal only if nothing
 * touched either. The takeover ends the session by a compare-and-set on {@code sessionBeat} (unless it was seen
 * ended already), then takes the lock by a compare-and-set on {@link #filter}.
 *
 * @param sessionBeat  the session's beat as read; null when the session was seen ended (or gone)
 * @param sessionEnded the session was read ended, or its document was gone: its locks may be taken at once
 */
record HeldBySession(Object version, Object owner, Object holds, String session, Object sessionBeat,
                     boolean sessionEnded) {

    /** The lock still held by the same acquisition at the same version, under the same session. */
    Bson filter(String name) {
        return and(eq(ID, name), eq(VERSION, version), eq(OWNER, owner), eq(HOLDS, holds), eq(SESSION, session));
    }

    /**
     * The locks held under any of {@code sessions}: the session named <em>and</em> a session holder's lease id, as
     * {@link #isHeldBySession} reads one. A lock of the previous version (renewed by its own holder, lease id without
     * the prefix) may still carry a {@code session} left by an earlier holder; selecting by the session alone would
     * let the clean-up of ended sessions, or the session check's orphan clean-up, free it under its live holder.
     */
    static Bson heldUnder(Collection<String> sessions) {
        return and(in(SESSION, sessions), regex(LEASE_ID, SESSION_LEASE_ID), gt(HOLDS, 0));
    }

    /** A session holder's lease id: the prefix, anchored (MongoDB then walks only that range of an index). */
    private static final String SESSION_LEASE_ID = "^" + SESSION_HELD;

    /** Whether {@code lock} is held under a session: a session id and a lease id of a session holder. */
    static boolean isHeldBySession(Document lock) {
        return lock.get(SESSION) instanceof String && lock.get(LEASE_ID) instanceof String leaseId
                && leaseId.startsWith(SESSION_HELD) && number(lock, HOLDS) > 0;
    }

    /**
     * What a waiter learns from reading the lock and then its session: the state to watch, for the session's lease.
     * Read in this order, a session read later than the lock is as good (spec/MongoLockSessions.tla): the take
     * names the lock's version, and an ended session stays ended. The database's clock (when the session read
     * carried it) may say the session went unrenewed so long ago that only a forward step of that clock of at least
     * max(1 min, lease) could fake it: the fast path, which still ends the session by its compare-and-set first.
     */
    static Sighting sightingOf(Document lock, Document session) {
        String owner = lock.getString(OWNER);
        String id = lock.getString(SESSION);
        boolean ended = session == null || !LIVE.equals(session.get(STATE));
        long leaseMs = session == null ? 0 : number(session, LEASE_MS);
        boolean longAgo = ended;
        Date serverNow = session == null ? null : serverNow(session);
        if (!ended && serverNow != null && session.get(RENEWED_AT) instanceof Date renewed) {
            long watchMs = LeaseWatch.watchPeriod(Duration.ofMillis(leaseMs)).toMillis();
            longAgo = serverNow.getTime() - renewed.getTime() > watchMs + Math.max(LONG_AGO.toMillis(), leaseMs);
        }
        HeldBySession state = new HeldBySession(lock.get(VERSION), owner, lock.get(HOLDS), id,
                ended ? null : session.get(BEAT), ended);
        return new Sighting(state, owner, Duration.ofMillis(Math.max(leaseMs, 1)), longAgo);
    }
}
