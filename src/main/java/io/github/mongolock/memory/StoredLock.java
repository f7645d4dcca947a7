package io.github.mongolock.memory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One lock of an {@link InMemoryLockStore}: the fields of MongoDB's lock document
 * ({@code io.github.mongolock.mongo.MongoLockStore} draws it), one Java field each. Mutable, and only
 * ever read or written while holding the store's monitor, which makes every operation atomic as a
 * single-document update is in MongoDB.
 */
final class StoredLock {

    /** The acquisition's owner id; null when free. */
    String owner;
    /** The owner's hold count; 0 when free. */
    int holds;
    /** +1 on every grant, takeover, re-entry, release and resync: the compare-and-set key. */
    long version;
    /** The fencing token: +1 on every fresh grant, never reset. */
    long token;
    /** +1 on every grant and renewal: what waiters watch. */
    long beat;
    /** Unique per grant (and per kept lease); renewals name it. */
    String leaseId;
    /** The holder's lease length, in whole milliseconds rounded up (for a lock held under a session: the session's). */
    long leaseMs;
    /** The session the lock is held under (null when free, kept, or given to an outside owner by a control). */
    String session;
    /** The database clock at the fresh grant; for people. */
    Instant acquiredAt;
    /** The database clock at the last grant, re-entry or renewal; for people, and the fast path. */
    Instant renewedAt;
    /** Set by a release that kept the lock for a minimum hold; every grant clears it. */
    Instant releasedAt;
    /** The last release by an operator ({@link InMemoryLockStore#releaseByOperator}): the acquisition it ended, or null. */
    String revokedOwner;
    /** Who released it then, and why; for the holder's loss reason. */
    String revokedBy;
    String revokedReason;
    /** The managers waiting for the lock, in arrival order, each once. */
    final List<String> queue = new ArrayList<>();

    /** One session of a manager, as MongoDB's session document: live until ended, never live again. */
    static final class StoredSession {
        final String manager;
        final long leaseMs;
        boolean live = true;
        /** +1 on every renewal: what waiters watch. */
        long beat;
        /** +1 when a control or an operator changed one of its locks: its manager checks them. */
        long checks;
        Instant renewedAt;

        StoredSession(String manager, long leaseMs, Instant now) {
            this.manager = manager;
            this.leaseMs = leaseMs;
            this.renewedAt = now;
        }
    }

    /** The manager at the head of the queue while the lock is free, else null. */
    String head() {
        return holds == 0 && !queue.isEmpty() ? queue.get(0) : null;
    }
}
