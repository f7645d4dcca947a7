package io.github.mongolock.core;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What this manager knows about one fresh acquisition of one lock: its owner id (unique per
 * acquisition), fencing token, the document version it last wrote, the hold count, until when the
 * lease is confirmed, and which threads are inside it.
 *
 * <p>A hold is <em>bound</em> to the thread that acquired it until it is closed or detached; only a
 * thread bound to at least one open hold re-enters the lock. That is what makes ownership follow the
 * caller: a hold handed to other code (a pending stage returned by a {@code @Locked} method, a
 * detached session) is never re-entered by whatever runs next on the same pooled thread.
 *
 * <p>{@link #mutex} serialises this owner's re-entries and releases, because sessions may be
 * closed from any thread and each compare-and-set must start from the version the previous one
 * left. {@code status} and {@code confirmedUntilNanos} are volatile so {@code isHeld()} and the
 * renewer can read them without taking the mutex; the bindings are a concurrent map for the same reason.
 */
final class HeldLock {

    enum Status { HELD, LOST, RELEASED }

    final String name;
    final String owner;
    final long fencingToken;
    final String leaseId;
    final Duration lease;
    /** How many grants in a row this manager gave itself by hand-over before this one (0: a fresh grant). */
    final int streak;
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
    /** Open holds per thread they are bound to. */
    private final ConcurrentHashMap<Thread, Integer> boundHolds = new ConcurrentHashMap<>();

    HeldLock(String name, String owner, AcquireAttempt.Granted granted, Duration lease, long requestSentAtNanos) {
        this(name, owner, granted, lease, requestSentAtNanos, 0);
    }

    HeldLock(String name, String owner, AcquireAttempt.Granted granted, Duration lease, long requestSentAtNanos,
             int streak) {
        this.streak = streak;
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

    void bind(Thread thread) {
        boundHolds.merge(thread, 1, Integer::sum);
    }

    void unbind(Thread thread) {
        boundHolds.computeIfPresent(thread, (key, count) -> count == 1 ? null : count - 1);
    }

    /** Whether {@code thread} is inside this acquisition: an acquire there is a nested call and re-enters. */
    boolean isBoundTo(Thread thread) {
        return boundHolds.containsKey(thread);
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
