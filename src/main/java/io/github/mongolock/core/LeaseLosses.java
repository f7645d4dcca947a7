package io.github.mongolock.core;

import static io.github.mongolock.core.OwnedLocks.withoutInterrupt;

import io.github.mongolock.LockException;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockMetrics;
import java.lang.System.Logger.Level;
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
        boolean changed = false;
        if (lock.mutex().tryLock()) {
            try {
                changed = lock.markLost(reason);
            } finally {
                lock.mutex().unlock();
            }
        }
        // If the owner is mid-operation, that operation's compare-and-set will find the loss itself.
        if (changed) {
            metrics.leaseLost(lock.group);
            LOG.log(Level.WARNING, "mongolock lost the lease of lock \"" + lock.name + "\" (token " + lock.fencingToken
                    + ", owner " + lock.owner + "): " + reason);
            events.lossLater(lock);
        }
    }

    LockLostException lost(HeldLock lock, String what) {
        return new LockLostException(lock.name, lock.fencingToken, "Lock \"" + lock.name + "\" (token " + lock.fencingToken
                + ") " + what + ": " + lock.lossReason + ". Work done under it since then was not protected;"
                + " close the sessions of this acquisition and acquire the lock again.");
    }
}
