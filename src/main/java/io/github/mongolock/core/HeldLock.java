package io.github.mongolock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 * <p>{@link #mutex()} serialises this owner's re-entries and releases, because sessions may be
 * closed from any thread and each compare-and-set must start from the version the previous one
 * left. {@code status} is volatile so {@code isHeld()} and the renewer can read it without taking the
 * mutex; the bindings are a volatile array for the same reason.
 *
 * <p>The lock is believed only while its {@link Session}'s lease is confirmed: the session, not the lock, is
 * renewed, and a waiter may take the lock once the session stayed unrenewed for its lease.
 */
@SuppressWarnings("serial") // never serialised: a ReentrantLock only to save the separate lock object per held lock
final class HeldLock extends ReentrantLock {

    enum Status { HELD, LOST, RELEASED }

    final String name;
    final String owner;
    final long fencingToken;
    final String leaseId;
    /** The session the lock is held under: its confirmed lease is this lock's. */
    final Session session;
    /** How many grants in a row this manager gave itself by hand-over before this one (0: a fresh grant). */
    final int streak;

    /** Guarded by {@link #mutex()}. */
    long version;
    /** Guarded by {@link #mutex()}. */
    int holds;
    /** Written under {@link #mutex()}. */
    volatile Status status = Status.HELD;
    /** Why the lease was lost, for the exceptions that report it; written under {@link #mutex()}. */
    volatile String lossReason;
    /**
     * A loss the renewer found while the owner was inside its own call (the mutex taken), for that call to report
     * when it ends ({@link LeaseLosses#afterOwnCall}); null when none.
     */
    volatile String lossFoundMidCall;
    /**
     * The threads open holds are bound to, one entry per hold (a thread bound twice appears twice): null when
     * none, the {@link Thread} itself for one hold (almost always), else a {@code Thread[]} replaced on every
     * change. Written under {@code this}; {@link #isBoundTo} reads it without a lock. Far less heap than a map.
     */
    private volatile Object boundThreads;
    /** When the grant's answer arrived: a minimum hold counts from here, never earlier than the grant. */
    final long grantedAtNanos;
    /**
     * Monotonic time before which the last release must not free the lock (a minimum hold); equal to
     * {@link #grantedAtNanos} when there is none. Guarded by {@link #mutex()}.
     */
    long holdUntilNanos;
    /** Guarded by {@code this}: what the open sessions asked to run when the lease is found lost (null: none yet). */
    private List<Runnable> lossActions;
    /** Guarded by {@code this}: the loss actions were taken to be run; later ones run at once. */
    private boolean lossActionsTaken;

    /** How metrics report this acquisition ({@link io.github.mongolock.LockMetrics}). */
    final String group;

    HeldLock(String name, String owner, AcquireAttempt.Granted granted, Session session, long answeredAtNanos,
             int streak, String group) {
        this.group = group;
        this.grantedAtNanos = answeredAtNanos;
        this.holdUntilNanos = answeredAtNanos;
        this.streak = streak;
        this.name = name;
        this.owner = owner;
        this.fencingToken = granted.fencingToken();
        this.leaseId = granted.leaseId();
        this.version = granted.version();
        this.session = session;
        this.holds = 1;
    }

    /** The lease of the lock's session. */
    Duration lease() {
        return session.lease;
    }

    /** Until when the store is known to count this lease as ours (monotonic nanoseconds). */
    long confirmedUntilNanos() {
        return session.confirmedUntilNanos();
    }

    /** Caller holds {@link #mutex()}: the last release keeps the lock until {@code holdAtLeast} after the grant. */
    void holdAtLeast(Duration holdAtLeast) {
        long until = grantedAtNanos + LockArguments.saturatedNanos(holdAtLeast);
        if (until - holdUntilNanos > 0) {
            holdUntilNanos = until;
        }
    }

    /** Caller holds {@link #mutex()}: how much of the minimum hold is left at {@code nowNanos} (zero or more). */
    long holdLeftNanos(long nowNanos) {
        return Math.max(holdUntilNanos - nowNanos, 0);
    }

    /** @return false when the loss is already being reported: the caller runs {@code action} itself */
    synchronized boolean addLossAction(Runnable action) {
        if (lossActionsTaken) {
            return false;
        }
        if (lossActions == null) {
            lossActions = new ArrayList<>(2);
        }
        lossActions.add(action);
        return true;
    }

    synchronized void removeLossAction(Runnable action) {
        if (lossActions != null) {
            lossActions.remove(action);
        }
    }

    /** The loss actions registered so far, once: whoever reports the loss runs them. */
    synchronized List<Runnable> takeLossActions() {
        lossActionsTaken = true;
        if (lossActions == null) {
            return List.of();
        }
        List<Runnable> taken = List.copyOf(lossActions);
        lossActions = null;
        return taken;
    }

    synchronized boolean hasLossActions() {
        return lossActions != null && !lossActions.isEmpty();
    }

    /**
     * Serialises this owner's re-entries and releases (see the class comment). The lock itself is the mutex:
     * one object less per held lock than a separate {@code ReentrantLock}.
     */
    ReentrantLock mutex() {
        return this;
    }

    synchronized void bind(Thread thread) {
        Object bound = boundThreads;
        if (bound == null) {
            boundThreads = thread;
        } else if (bound instanceof Thread sole) {
            boundThreads = new Thread[] {sole, thread};
        } else {
            Thread[] all = (Thread[]) bound;
            Thread[] more = Arrays.copyOf(all, all.length + 1);
            more[all.length] = thread;
            boundThreads = more;
        }
    }

    /** One hold bound to {@code thread} is closed or detached. */
    synchronized void unbind(Thread thread) {
        Object bound = boundThreads;
        if (bound == thread) {
            boundThreads = null;
            return;
        }
        if (!(bound instanceof Thread[] all)) {
            return;
        }
        for (int i = all.length - 1; i >= 0; i--) {
            if (all[i] == thread) {
                if (all.length == 2) {
                    boundThreads = all[1 - i];
                } else {
                    Thread[] fewer = new Thread[all.length - 1];
                    System.arraycopy(all, 0, fewer, 0, i);
                    System.arraycopy(all, i + 1, fewer, i, all.length - i - 1);
                    boundThreads = fewer;
                }
                return;
            }
        }
    }

    /** Whether {@code thread} is inside this acquisition: an acquire there is a nested call and re-enters. */
    boolean isBoundTo(Thread thread) {
        Object bound = boundThreads;
        if (bound == thread) {
            return true;
        }
        if (bound instanceof Thread[] all) {
            for (Thread each : all) {
                if (each == thread) {
                    return true;
                }
            }
        }
        return false;
    }

    boolean confirmedAt(long nowNanos) {
        return session.confirmedAt(nowNanos);
    }

    boolean isHeldAt(long nowNanos) {
        return status == Status.HELD && confirmedAt(nowNanos);
    }

    /** Caller holds {@link #mutex()}. @return true if this call changed the status */
    boolean markLost(String reason) {
        if (status != Status.HELD) {
            return false;
        }
        lossReason = reason;
        status = Status.LOST;
        return true;
    }
}
