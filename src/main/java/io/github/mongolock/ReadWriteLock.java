package io.github.mongolock;

import java.util.Optional;

/**
 * A leased read-write lock: many readers at once, or one writer, across every manager that uses the name. Got from
 * {@code LockManager.readWriteLock(name)}; cheap to create, thread-safe, holding nothing itself.
 *
 * <ul>
 *   <li><b>Writer preference</b>: once a writer waits, no new reader is granted until it was served, so a stream of
 *       readers never starves a writer. Waiting writers of different managers take turns in arrival order.</li>
 *   <li><b>Re-entry</b> of each mode by the same caller (the thread that acquired it, while its hold is open): a nested
 *       {@code read()} inside a read hold, or {@code write()} inside a write hold, counts up and never waits.</li>
 *   <li><b>Downgrade</b>: a caller holding write may acquire read (granted at once), then close its write and keep
 *       reading. <b>Upgrade</b> is refused: a caller holding only read that asks for write gets a
 *       {@link LockUpgradeException} at once (two upgraders would wait for each other for ever).</li>
 *   <li>Leased by the holder's session as locks are; every grant gets a fencing token greater than every earlier
 *       grant's of the name, so a write's token fences the writes it protects.</li>
 * </ul>
 *
 * <pre>{@code
 * ReadWriteLock catalog = locks.readWriteLock("catalog");
 * try (ReadWriteHold read = catalog.read()) {
 *     return prices.lookup(item);
 * }
 * try (ReadWriteHold write = catalog.write()) {
 *     prices.reload(write.fencingToken());
 * }
 * }</pre>
 */
public interface ReadWriteLock {

    /** The lock's name (its own namespace: a lock or a semaphore of the same name is another thing). */
    String name();

    /**
     * Read access, waiting up to the manager's default wait time.
     *
     * @throws LockTimeoutException       when a writer held or waited for the lock for the whole wait
     * @throws LockStoreException         when MongoDB cannot be reached or refuses the operation
     * @throws LockLostException          when the caller re-enters a read (or downgrades a write) whose lease was lost
     * @throws LockInterruptedException   when the thread is interrupted while waiting
     */
    ReadWriteHold read();

    /** Read access with the options' wait and lease times and lease-loss policy. Exceptions as for {@link #read()}. */
    ReadWriteHold read(LockOptions options);

    /** One attempt at read access, never waiting; empty when a writer holds or waits for the lock. */
    Optional<ReadWriteHold> tryRead();

    /** As {@link #read(LockOptions)}, but empty instead of {@link LockTimeoutException}. */
    Optional<ReadWriteHold> tryRead(LockOptions options);

    /**
     * Write access, waiting up to the manager's default wait time.
     *
     * @throws LockUpgradeException     when the caller holds read of this lock and not write
     * @throws LockTimeoutException     when readers or another writer held the lock for the whole wait
     * @throws LockStoreException       when MongoDB cannot be reached or refuses the operation
     * @throws LockLostException        when the caller re-enters a write whose lease was lost
     * @throws LockInterruptedException when the thread is interrupted while waiting
     */
    ReadWriteHold write();

    /** Write access with the options' wait and lease times and lease-loss policy. Exceptions as for {@link #write()}. */
    ReadWriteHold write(LockOptions options);

    /** One attempt at write access, never waiting; empty when readers or another writer hold the lock. */
    Optional<ReadWriteHold> tryWrite();

    /** As {@link #write(LockOptions)}, but empty instead of {@link LockTimeoutException}. */
    Optional<ReadWriteHold> tryWrite(LockOptions options);
}
