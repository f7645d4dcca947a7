package io.github.mongolock.core;

/**
 * Where leased read-write locks live: a {@link PermitStore} whose records hold a fixed limit ({@link #WHOLE}), where a
 * read hold is an entry of 1 permit and a write hold an entry of the whole limit, and whose queue lists the managers
 * with a waiting writer (spec/RWLOCK-DESIGN.md). A read is granted only while no writer is queued (writer
 * preference); a write only with nothing held and no other manager's writer first in the queue. Implementations are
 * thread-safe.
 */
public interface ReadWriteStore extends PermitStore {

    /** A read-write lock's record's limit: a write hold takes all of it, a read hold 1. */
    int WHOLE = 1 << 30;

    /**
     * Adds a read hold for {@code owner} under {@code session} beside the write hold of {@code writeOwner} (the same
     * caller's): granted whatever the room and the queue, since the caller excludes everyone else already; nothing
     * changes when the write hold is gone (taken back), and the answer is then busy.
     */
    PermitAttempt downgrade(String name, String writeOwner, String owner, String session);
}
