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
