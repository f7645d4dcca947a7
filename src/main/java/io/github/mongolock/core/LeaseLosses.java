package io.github.mongolock.core;

import static io.github.mongolock.core.OwnedLocks.withoutInterrupt;

import io.github.mongolock.LockException;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockMetrics;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * What happens when a hold turns out lost: the lock is marked lost once, the loss counted and told to the
 * listeners (at once on the owner's thread when its own store call found it, later when the renewer did),
 * the exception its sessions then throw, and the early release of a lost lock that may still be ours in the
 * store, written in the background by one clean-up thread (created on first use) so that closing a lost hold
 * never waits for MongoDB. Kept apart from re-entry and release so that the one rule of losses lives in one place: a loss is
 * recorded only on MongoDB's answer or a lease unconfirmed for a whole lease, never on a store failure alone
 * (see {@link OwnedLocks}). Thread-safe.
 */
final class LeaseLosses {

    private static final System.Logger LOG = System.getLogger(LeaseLosses.class.getName());
    /** Locks of one lost session logged with a WARNING line each; above, one line counts them. */
    static final int LINES_PER_LOSS = 10;

    private final LockStore store;
    private final ReleaseSignals signals;
    private final LockEvents events;
    private final LockMetrics metrics;
    private final String threadName;
    /** Guarded by {@code this}. */
    private ExecutorService cleanUps;

    LeaseLosses(LockStore store, ReleaseSignals signals, LockEvents events, LockMetrics metrics, String threadName) {
        this.store = store;
        this.signals = signals;
        this.events = events;
        this.metrics = metrics;
        this.threadName = threadName;
    }

    /** Caller holds the mutex: the owner's own store call found the loss; listeners hear it on this thread. */
    void lostInOwnCall(HeldLock lock, String reason) {
        if (lock.markLost(reason)) {
            metrics.leaseLost(lock.group);
            events.lossNow(lock);
        }
    }

    /**
     * A lease lost locally (unconfirmed, or a store failure) may still be ours in the store: a
     * version-checked release frees it early, and changes nothing if anyone else moved it. Sent from the
     * clean-up thread, each bounded by the store's timeout: the caller (a {@code close()}, perhaps run by
     * a cancelled stage) returns at once, whatever MongoDB is doing. When the coordinator is closed already,
     * nothing is sent: the lock frees itself when its lease runs out.
     */
    synchronized void freeInBackground(HeldLock lock) {
        if (cleanUps == null) {
            cleanUps = Executors.newSingleThreadExecutor(new DaemonThreads(threadName));
        }
        try {
            cleanUps.execute(() -> freeIfStillOurs(lock));
        } catch (RejectedExecutionException closed) {
            LOG.log(Level.DEBUG, "lost lock {0} is not freed early: the manager is closed", lock.name);
        }
    }

    /** Clean-ups already asked for are still sent. */
    synchronized void close() {
        if (cleanUps != null) {
            cleanUps.shutdown();
        }
    }

    private void freeIfStillOurs(HeldLock lock) {
        try {
            if (withoutInterrupt(() -> store.release(lock.name, lock.owner, lock.version, 0))) {
                signals.released(lock.name);
            }
        } catch (LockException stillDown) {
            LOG.log(Level.DEBUG, "could not free lost lock {0} early; it frees itself when its lease runs out", lock.name);
        }
    }

    /** Called by the renewer (and on takeover): never blocks behind the owner's own store call. */
    void leaseLost(HeldLock lock, String reason) {
        if (markLostFromOutside(lock, reason)) {
            LOG.log(Level.WARNING, lossLine(lock, reason));
            told(lock);
        }
    }

    /**
     * Every lock held under one session, lost for one reason (the session ended or lapsed). Up to
     * {@link #LINES_PER_LOSS} locks get a WARNING line each, as single losses do; more get one WARNING line that
     * counts them and names the first ones, and a DEBUG line each: a manager holding thousands of locks whose
     * session lapsed must not flood its log in one instant. Listeners and metrics still hear of every lock.
     */
    void sessionLost(List<HeldLock> locks, String reason) {
        List<HeldLock> lost = new ArrayList<>(locks.size());
        for (HeldLock lock : locks) {
            if (markLostFromOutside(lock, reason)) {
                lost.add(lock);
            }
        }
        lost.sort(Comparator.comparing(lock -> lock.name)); // a log people read: the same order every time
        if (lost.size() <= LINES_PER_LOSS) {
            lost.forEach(lock -> LOG.log(Level.WARNING, lossLine(lock, reason)));
        } else {
            StringBuilder first = new StringBuilder();
            for (HeldLock lock : lost.subList(0, LINES_PER_LOSS)) {
                first.append(first.length() == 0 ? "" : ", ").append('"').append(lock.name).append("\" (token ")
                        .append(lock.fencingToken).append(')');
            }
            LOG.log(Level.WARNING, "mongolock lost the leases of " + lost.size() + " locks held under one session: " + reason
                    + ". The first " + LINES_PER_LOSS + ": " + first + "; each one is logged at DEBUG level (logger "
                    + LeaseLosses.class.getName() + ")");
            lost.forEach(lock -> LOG.log(Level.DEBUG, lossLine(lock, reason)));
        }
        lost.forEach(this::told);
    }

    /**
     * Marks the loss, unless the owner is inside its own call: then the loss is left on the lock for that call to
     * report when it ends ({@link #afterOwnCall}), since the call may never look at the lease again (a nested
     * acquire whose store call fails, a nested release that succeeds). Tried twice around leaving it, so that an
     * owner whose call ended between the two cannot miss it: if the second try fails too, the owner still holds the
     * mutex and reads the loss after it lets go.
     */
    private static boolean markLostFromOutside(HeldLock lock, String reason) {
        if (!lock.mutex().tryLock()) {
            lock.lossFoundMidCall = reason;
            if (!lock.mutex().tryLock()) {
                return false;
            }
        }
        try {
            lock.lossFoundMidCall = null;
            return lock.markLost(reason);
        } finally {
            lock.mutex().unlock();
        }
    }

    /**
     * Caller holds the mutex, at the start of an owner's call: a loss found during an earlier call of the owner and
     * not reported yet (that call ended before the renewer left it) is reported now, before this call relies on the
     * hold.
     */
    void beforeOwnCall(HeldLock lock) {
        String found = lock.lossFoundMidCall;
        if (found != null) {
            lock.lossFoundMidCall = null;
            if (lock.markLost(found)) {
                LOG.log(Level.WARNING, lossLine(lock, found));
                told(lock);
            }
        }
    }

    /**
     * The owner's own call on {@code lock} has ended and let go of the mutex: a loss found meanwhile (by the renewer,
     * or the session ended while the call ran) is reported now, as the renewer reports one. Cheap when there is none:
     * two volatile reads.
     */
    void afterOwnCall(HeldLock lock) {
        String found = lock.lossFoundMidCall;
        if (found != null) {
            leaseLost(lock, found);
        } else if (lock.status == HeldLock.Status.HELD && lock.session.isEnded()) {
            leaseLost(lock, lock.session.endReason());
        }
    }

    private static String lossLine(HeldLock lock, String reason) {
        return "mongolock lost the lease of lock \"" + lock.name + "\" (token " + lock.fencingToken + ", owner " + lock.owner
                + "): " + reason;
    }

    private void told(HeldLock lock) {
        metrics.leaseLost(lock.group);
        events.lossLater(lock);
    }

    LockLostException lost(HeldLock lock, String what) {
        return new LockLostException(lock.name, lock.fencingToken, "Lock \"" + lock.name + "\" (token " + lock.fencingToken
                + ") " + what + ": " + lock.lossReason + ". Work done under it since then was not protected;"
                + " close the sessions of this acquisition and acquire the lock again.");
    }
}
