package io.github.mongolock.core;

import io.github.mongolock.LockException;
import io.github.mongolock.Permits;
import io.github.mongolock.ReadWriteLock;
import java.time.Duration;

/**
 * The holds a manager keeps under its sessions besides locks: leased semaphores and read-write locks, each a
 * {@link PermitCoordinator} over its own store, with its own waiters (their names are namespaces of their own), wired
 * once for the lock coordinator. Thread-safe.
 */
final class SessionPrimitives {

    /** The waiters for permits, by semaphore name; the push feed's notices for semaphores wake them. */
    final ReleaseSignals permitSignals = new ReleaseSignals();
    /** The waiters for read-write locks, by name. */
    final ReleaseSignals readWriteSignals = new ReleaseSignals();
    private final PermitCoordinator semaphores;
    private final PermitCoordinator readWrite;
    private final ReadWriteLocks readWriteLocks;
    private final ReadWriteReports readWriteReports;

    /**
     * @param startFeed starts or nudges the manager's push feed, when a waiter finds a hold of another manager's
     */
    SessionPrimitives(LockStore store, Sessions sessions, MonotonicClock clock, RetryBackoff backoff, String ownerPrefix,
                      Duration defaultLease, Duration defaultWait, LockEvents events, PermitReports reports,
                      Runnable startFeed) {
        this.semaphores = new PermitCoordinator(store.permitStore(), sessions, clock, backoff, ownerPrefix, defaultLease,
                defaultWait, events, reports, permitSignals, startFeed, false);
        this.readWrite = new PermitCoordinator(store.readWriteStore(), sessions, clock, backoff, ownerPrefix, defaultLease,
                defaultWait, events, reports, readWriteSignals, startFeed, true);
        this.readWriteLocks = store.readWriteStore().isPresent() ? new ReadWriteLocks(readWrite, defaultWait) : null;
        this.readWriteReports = reports.readWrite;
    }

    /** What the session renewer must know of these holds. */
    SessionHolders sessionHolders() {
        return SessionHolders.both(semaphores.sessionHolders(), readWrite.sessionHolders());
    }

    Permits permits(String name, int limit) {
        return semaphores.permits(name, limit);
    }

    ReadWriteLock readWriteLock(String name) {
        if (readWriteLocks == null) {
            throw new UnsupportedOperationException("This lock store keeps no read-write locks: use MongoLockStore or"
                    + " InMemoryLockStore");
        }
        return readWriteReports.reported(readWriteLocks.lock(name));
    }

    /** The test kit's controls: waits until the holds of {@code owner} were reported lost; false when none is open here. */
    boolean awaitLossTold(String owner, long timeoutMillis) throws InterruptedException {
        return semaphores.awaitLossTold(owner, timeoutMillis) || readWrite.awaitLossTold(owner, timeoutMillis);
    }

    /** The manager closes: every hold is given back, and reported so. */
    void close() {
        try {
            semaphores.close();
        } catch (LockException unexpected) {
            closeReadWrite();
            throw unexpected;
        }
        closeReadWrite();
    }

    private void closeReadWrite() {
        try {
            readWrite.close();
        } finally {
            readWriteReports.managerClosed();
        }
    }
}
