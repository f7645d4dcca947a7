package io.github.mongolock;

import java.util.Map;

/**
 * What a lock manager reports for monitoring: acquisitions with their wait and outcome, hold times,
 * lost leases, store failures, and (observed when metrics are collected) the locks held and the push
 * wake-up's state. {@link io.github.mongolock.otel.OpenTelemetryLockMetrics} records them as
 * OpenTelemetry instruments; {@link #NONE} records nothing.
 *
 * <p>Locks are reported by <em>group</em>, never by name unless asked: names often carry ids
 * ({@code account-42}), and one time series per id would overwhelm a metrics backend. The group is
 * the {@code @Locked} name template ({@code account-{0}}), or {@link LockOptions#metricsGroup}, or
 * {@value #UNGROUPED}. Every method is called on the thread that did the work, must be quick and must
 * not throw; implementations are thread-safe.
 */
public interface LockMetrics {

    /** The group of a lock acquired without {@link LockOptions#metricsGroup} outside {@code @Locked}. */
    String UNGROUPED = "ungrouped";

    /** Records nothing. */
    LockMetrics NONE = new LockMetrics() {
    };

    /** How an acquire call ended. */
    enum Outcome {
        /** The caller got a hold (fresh, re-entrant or handed over). */
        ACQUIRED,
        /** {@code acquire} gave up at the end of its wait time ({@link LockTimeoutException}). */
        TIMED_OUT,
        /** {@code tryAcquire} answered empty: the caller goes on without the lock ({@code @Locked(onBusy = SKIP)}). */
        SKIPPED,
        /** Any other exception: MongoDB unreachable, interrupted, a lost lease found on re-entry, a closed manager. */
        FAILED
    }

    /** What a manager shows when metrics are collected. */
    interface Observed {
        /** The manager's instance id. */
        String instanceId();

        /** Locks held now (fresh acquisitions whose lease is not lost), by group. */
        Map<String, Long> locksHeldByGroup();

        /** The push wake-up's state ({@code IDLE}, {@code PUSHING}, {@code POLLING}, ...). */
        String pushWakeUp();

        /** Semaphore permits held now (grants neither closed nor lost), by group. */
        default Map<String, Long> permitsHeldByGroup() {
            return Map.of();
        }

        /**
         * Read-write lock grants of {@code mode} held now (neither given back nor lost; a caller's nested acquisitions
         * of one mode are one grant), by group.
         */
        default Map<String, Long> readWriteHeldByGroup(ReadWriteHold.Mode mode) {
            return Map.of();
        }
    }

    /** An acquire or tryAcquire call ended after waiting {@code waitedNanos}. */
    default void acquireEnded(String group, Outcome outcome, long waitedNanos) {
    }

    /** A fresh acquisition was released by its last hold after {@code heldNanos} (from its grant). */
    default void holdEnded(String group, long heldNanos) {
    }

    /** A lease was found lost while held. */
    default void leaseLost(String group) {
    }

    /**
     * A semaphore's acquire or tryAcquire call ({@link Permits}) ended after waiting {@code waitedNanos}. The group is
     * {@link LockOptions#metricsGroup} (the {@code @Locked} template for {@code @Locked(permits = N)}), else
     * {@value #UNGROUPED}, as for locks.
     */
    default void permitAcquireEnded(String group, Outcome outcome, long waitedNanos) {
    }

    /** A semaphore's hold of permits was closed after {@code heldNanos} (from its grant). */
    default void permitHoldEnded(String group, long heldNanos) {
    }

    /** A semaphore's hold of {@code permits} permits was found lost while held. */
    default void permitsLost(String group, int permits) {
    }

    /**
     * A read-write lock's read, tryRead, write or tryWrite call ({@link ReadWriteLock}) ended after waiting
     * {@code waitedNanos}; a re-entry is {@code ACQUIRED} at once, a refused upgrade {@code FAILED}. The group is chosen
     * as for locks (the {@code @Locked} template for {@code @Locked(access = READ | WRITE)}).
     */
    default void readWriteAcquireEnded(String group, ReadWriteHold.Mode mode, Outcome outcome, long waitedNanos) {
    }

    /** A read-write lock's grant of {@code mode} was given back by its caller's last hold after {@code heldNanos}. */
    default void readWriteHoldEnded(String group, ReadWriteHold.Mode mode, long heldNanos) {
    }

    /** A read-write lock's grant of {@code mode} was found lost while held. */
    default void readWriteLost(String group, ReadWriteHold.Mode mode) {
    }

    /** A call to MongoDB failed ({@code operation}: acquire, renew, release, ...). */
    default void storeFailed(String operation) {
    }

    /**
     * A manager starts: observe it until the returned handle is closed (when the manager closes).
     *
     * @return closes the observation; never null
     */
    default AutoCloseable observe(Observed manager) {
        return () -> { };
    }
}
