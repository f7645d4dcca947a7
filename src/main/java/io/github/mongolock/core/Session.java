package io.github.mongolock.core;

import java.time.Duration;

/**
 * One session of this manager in the store ({@link LockStore#openSession}): the liveness of every lock the
 * manager holds under it. A lock document names its session and is never renewed itself; the manager renews
 * the session, one write per renewal interval however many locks it holds, and believes a lock of it only while
 * the session's lease is confirmed (spec/MongoLockSessions.tla, finding "GrantOwnLease").
 *
 * <p>The lease is counted from when a renewal whose answer said "still live" was <em>sent</em>, on this
 * machine's monotonic clock. Once the confirmed lease has run out, or the store said the session ended, the
 * session is over for good: it is never renewed again, even if a later renewal could still match (a lock
 * reported lost must not come back, and an unrenewed session is what frees its locks for waiters), and
 * the next grant opens a new one.
 *
 * <p>{@code confirmedUntilNanos}, {@code ended} and the check bookkeeping are volatile or atomic: the renewer,
 * the deadline check, {@code isHeld()} and acquiring threads read them without a lock.
 */
final class Session {

    /** Every this many renewals the locks under the session are checked even when nothing asked for it. */
    static final int CHECK_EVERY = 60;
    /**
     * After an unknown outcome, at least this many renewals in a row check (two leases), and more when the store
     * says a request may land later than that ({@link LockStore#lateWritesWithin}): with a 1 s lease, six renewals
     * take 2 s, less than a 10 s store timeout.
     */
    static final int CHECKS_AFTER_UNKNOWN = 6;

    final String id;
    final Duration lease;
    private final long leaseNanos;
    /** Renewals in a row that check after an unknown outcome: they span two leases and the store's late writes. */
    private final int checksAfterUnknown;
    private volatile long confirmedUntilNanos;
    private volatile boolean ended;
    /** Why it ended, for the holders of its locks. */
    private volatile String endReason;
    /** Renewals left that must check the session's locks. Guarded by {@code this}. */
    private int checksDue;
    private int renewalsSinceCheck;
    /** The store's check counter as last seen ({@link SessionRenewal#checks}): a new session starts at 0. */
    private long checksSeen;
    /** When a lock was last granted or held under it: an idle session is ended after a while. */
    private volatile long lastUsedNanos;

    Session(String id, Duration lease, long openSentAtNanos, Duration lateWritesWithin) {
        this.id = id;
        this.lease = lease;
        this.leaseNanos = LockArguments.saturatedNanos(lease);
        // One check more than the late writes' span in renewal periods: the last check comes after it is over.
        long lateChecks = LockArguments.saturatedNanos(lateWritesWithin) / renewalPeriodNanos() + 2;
        this.checksAfterUnknown = (int) Math.min(Math.max(CHECKS_AFTER_UNKNOWN, lateChecks), 10_000);
        this.confirmedUntilNanos = openSentAtNanos + leaseNanos;
        this.lastUsedNanos = openSentAtNanos;
    }

    long confirmedUntilNanos() {
        return confirmedUntilNanos;
    }

    /** Whether the store is known to count the session live at {@code nowNanos}. */
    boolean confirmedAt(long nowNanos) {
        return !ended && confirmedUntilNanos - nowNanos > 0;
    }

    /**
     * A renewal sent at {@code sentAtNanos} found the session live; answered at {@code answeredAtNanos}.
     *
     * @return false when the confirmed lease had run out before the answer: the session stays over
     */
    synchronized boolean confirm(long sentAtNanos, long answeredAtNanos, long storeChecks) {
        if (!confirmedAt(answeredAtNanos)) {
            return false;
        }
        long until = sentAtNanos + leaseNanos;
        if (until - confirmedUntilNanos > 0) {
            confirmedUntilNanos = until;
        }
        if (storeChecks != checksSeen) {
            checksDue = Math.max(checksDue, 1); // an operator changed a lock of this session (LockAdmin)
        }
        checksSeen = storeChecks;
        return true;
    }

    /** The session is over: no lock of it is believed any more, and it is never renewed again. */
    void end(String reason) {
        if (!ended) {
            endReason = reason;
            ended = true;
        }
    }

    boolean isEnded() {
        return ended;
    }

    String endReason() {
        return endReason;
    }

    /** A request under this session had an unknown outcome: it may leave a lock nobody here knows of. */
    synchronized void checkSoon() {
        checksDue = Math.max(checksDue, checksAfterUnknown);
    }

    /** How many renewals in a row check after an unknown outcome. */
    int checksAfterUnknown() {
        return checksAfterUnknown;
    }

    /** The next renewal checks the session's locks (something outside changed one of them). */
    synchronized void checkNext() {
        checksDue = Math.max(checksDue, 1);
    }

    /** Called once per renewal: whether this renewal also checks the session's locks. */
    synchronized boolean takeCheck() {
        renewalsSinceCheck++;
        if (checksDue > 0 || renewalsSinceCheck >= CHECK_EVERY) {
            checksDue = Math.max(checksDue - 1, 0);
            renewalsSinceCheck = 0;
            return true;
        }
        return false;
    }

    void used(long nowNanos) {
        lastUsedNanos = nowNanos;
    }

    long lastUsedNanos() {
        return lastUsedNanos;
    }

    long renewalPeriodNanos() {
        return Math.max(leaseNanos / 3, 1);
    }

    @Override
    public String toString() {
        return "session " + id + " (lease " + lease + ")";
    }
}
