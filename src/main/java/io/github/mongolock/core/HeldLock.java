package io.github.mongolock.core;

import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What this manager knows about one lock it holds for one owner: the acquisition's fencing token,
 * the document version it last wrote, the hold count, and until when the lease is confirmed.
 *
 * <p>{@link #mutex} serialises this owner's re-entries and releases, because sessions may be
 * closed from any thread and each compare-and-set must start from the version the previous one
 * left. {@code status} and {@code confirmedUntilNanos} are volatile so {@code isHeld()} and the
 * renewer can read them without taking the mutex.
 */
final class HeldLock {

    enum Status { HELD, LOST, RELEASED }

    final String name;
    final String owner;
    final long fencingToken;
    final String leaseId;
    final Duration lease;
    final ReentrantLock mutex = new ReentrantLock();

    /** Guarded by {@link #mutex}. */
    long version;
    /** Guarded by {@link #mutex}. */
    int holds;
    /** Written under {@link #mutex}. */
    volatile Status status = Status.HELD;
    /** Why the lease was lost, for the exceptions that report it; written under {@link #mutex}. */
    volatile String lossReason;
    /** Monotonic time before which the store is known to still count this lease as ours. */
    private volatile long confirmedUntilNanos;

    HeldLock(String name, String owner, AcquireAttempt.Granted granted, Duration lease, long requestSentAtNanos) {
        this.name = name;
        this.owner = owner;
        this.fencingToken = granted.fencingToken();
        this.leaseId = granted.leaseId();
        this.version = granted.version();
        this.lease = lease;
        this.holds = 1;
        this.confirmedUntilNanos = requestSentAtNanos + LockArguments.saturatedNanos(lease);
    }

    /**
     * Records that the store restarted the lease at some point after {@code requestSentAtNanos}.
     * Counting from when the request was sent, not answered, keeps the local view no longer than the store's.
     */
    void confirm(long requestSentAtNanos) {
        long until = requestSentAtNanos + LockArguments.saturatedNanos(lease);
        if (until - confirmedUntilNanos > 0) {
            confirmedUntilNanos = until;
        }
    }

    boolean confirmedAt(long nowNanos) {
        return confirmedUntilNanos - nowNanos > 0;
    }

    boolean isHeldAt(long nowNanos) {
        return status == Status.HELD && confirmedAt(nowNanos);
    }

    /** Caller holds {@link #mutex}. @return true if this call changed the status */
    boolean markLost(String reason) {
        if (status != Status.HELD) {
            return false;
        }
        lossReason = reason;
        status = Status.LOST;
        return true;
    }

    long renewalPeriodNanos() {
        return Math.max(LockArguments.saturatedNanos(lease) / 3, 1);
    }
}
