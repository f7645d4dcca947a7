package io.github.mongolock.core;

import io.github.mongolock.LockEvent;
import io.github.mongolock.LockException;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockInterruptedException;
import io.github.mongolock.LockListener;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.LockTimeoutException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * The lock algorithm, written once for every {@link LockStore}: validation, the wait loop with
 * local wake-ups and jittered backoff, re-entrancy bookkeeping, lease renewal and loss detection.
 *
 * <p>The owner of a hold is {@code <ownerPrefix>:<thread id>}; {@code ownerPrefix} must be unique
 * per coordinator (it contains a random nonce), so two coordinators never re-enter each other's
 * locks. One coordinator holds at most one {@link HeldLock} per name: two of its threads exclude
 * each other locally without a round trip. Thread-safe.
 */
public final class LockCoordinator implements LockManager, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LockCoordinator.class.getName());

    private final LockStore store;
    private final String ownerPrefix;
    private final Duration defaultLease;
    private final Duration defaultWait;
    private final MonotonicClock clock;
    private final List<LockListener> listeners;
    private final RetryBackoff backoff;
    private final ConcurrentHashMap<String, HeldLock> held = new ConcurrentHashMap<>();
    private final ReleaseSignals signals = new ReleaseSignals();
    private final LeaseRenewer renewer;
    private final ReleaseFeed releaseFeed;
    /** Delivers losses found in the background, so a slow listener never holds up the renewals; created on first use. */
    private ExecutorService lossNotices;
    private volatile boolean closed;

    public LockCoordinator(LockStore store, String ownerPrefix, Duration defaultLease, Duration defaultWait,
                           MonotonicClock clock, List<LockListener> listeners) {
        this(store, ownerPrefix, defaultLease, defaultWait, clock, listeners, ReleaseFeed.NONE);
    }

    /** @param releaseFeed wakes waiters on releases made by other machines; {@link ReleaseFeed#NONE} to poll only */
    public LockCoordinator(LockStore store, String ownerPrefix, Duration defaultLease, Duration defaultWait,
                           MonotonicClock clock, List<LockListener> listeners, ReleaseFeed releaseFeed) {
        this(store, ownerPrefix, defaultLease, defaultWait, clock, listeners, releaseFeed, RetryBackoff.standard());
    }

    LockCoordinator(LockStore store, String ownerPrefix, Duration defaultLease, Duration defaultWait,
                    MonotonicClock clock, List<LockListener> listeners, ReleaseFeed releaseFeed, RetryBackoff backoff) {
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        this.releaseFeed = Objects.requireNonNull(releaseFeed, "releaseFeed");
        this.store = Objects.requireNonNull(store, "store");
        this.ownerPrefix = Objects.requireNonNull(ownerPrefix, "ownerPrefix");
        this.defaultLease = LockArguments.checkLease(defaultLease, "leaseTime");
        this.defaultWait = LockArguments.checkWait(defaultWait, "waitTime");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listeners = List.copyOf(listeners);
        this.renewer = new LeaseRenewer(store, clock, "mongolock-renewer-" + ownerPrefix,
                held::values, this::leaseLost);
    }

    @Override
    public LockSession acquire(String name) {
        return acquire(name, LockOptions.defaults());
    }

    @Override
    public LockSession acquire(String name, Duration waitFor) {
        return acquire(name, LockOptions.defaults().waitTime(LockArguments.checkWait(waitFor, "waitFor")));
    }

    @Override
    public LockSession acquire(String name, LockOptions options) {
        return obtain(name, options, true).orElseThrow();
    }

    @Override
    public Optional<LockSession> tryAcquire(String name) {
        return obtain(name, LockOptions.defaults().waitTime(Duration.ZERO), false);
    }

    @Override
    public Optional<LockSession> tryAcquire(String name, LockOptions options) {
        return obtain(name, options, false);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        ensureOpen();
        return store.inspect(LockArguments.checkName(name));
    }

    /** What the push wake-up is doing (for health checks and diagnostics). */
    public ReleaseFeed.Status releaseFeedStatus() {
        return releaseFeed.status();
    }

    /** The owner id the calling thread acquires under. */
    public String currentOwner() {
        return ownerPrefix + ":" + Thread.currentThread().getId();
    }

    private Optional<LockSession> obtain(String name, LockOptions options, boolean throwWhenBusy) {
        ensureOpen();
        LockArguments.checkName(name);
        Objects.requireNonNull(options, "options");
        Duration wait = LockArguments.checkWait(options.waitTime().orElse(defaultWait), "waitTime");
        Duration lease = LockArguments.checkLease(options.leaseTime().orElse(defaultLease), "leaseTime");
        String owner = currentOwner();
        long waitNanos = LockArguments.saturatedNanos(wait);
        long start = clock.nanoTime();
        // Join before the first attempt so a release between that attempt and the park is seen.
        ReleaseSignals.Signal signal = waitNanos > 0 ? signals.join(name) : null;
        boolean woken = false;
        Optional<LockSession> outcome = Optional.empty();
        try {
            for (int attempt = 0; ; attempt++) {
                ensureOpen();
                if (signal != null && Thread.currentThread().isInterrupted()) {
                    throw interrupted(name, null);
                }
                long generation = signal == null ? 0 : signal.generation();
                HeldLock current = held.get(name);
                if (current != null && current.owner.equals(owner)) {
                    outcome = reenter(current);
                    if (outcome.isPresent()) {
                        return outcome;
                    }
                    continue; // released from another thread meanwhile: acquire afresh
                }
                AcquireAttempt.Busy busy;
                if (current != null && current.status == HeldLock.Status.HELD) {
                    // Another thread of this manager holds it: no round trip needed to know.
                    busy = new AcquireAttempt.Busy(Optional.of(current.owner), Optional.empty());
                } else {
                    long sentAt = clock.nanoTime();
                    AcquireAttempt result = attemptFresh(name, owner, lease);
                    if (result instanceof AcquireAttempt.Granted granted) {
                        outcome = Optional.of(registerFresh(name, owner, lease, granted, sentAt));
                        return outcome;
                    }
                    busy = (AcquireAttempt.Busy) result;
                    if (signal != null) {
                        // Held by another machine: only a pushed notice can wake us before the backoff.
                        releaseFeed.start(signals::released);
                    }
                }
                long left = waitNanos - (clock.nanoTime() - start);
                if (left <= 0 || signal == null) {
                    if (throwWhenBusy) {
                        throw timeout(name, wait, busy);
                    }
                    return Optional.empty();
                }
                boolean pushed = releaseFeed.status() == ReleaseFeed.Status.PUSHING;
                long pause = Math.min(backoff.pauseNanos(attempt, busy.remainingLease().orElse(null), pushed), left);
                woken = signal.awaitChange(generation, pause);
            }
        } catch (InterruptedException interruptedWhileParked) {
            throw interrupted(name, interruptedWhileParked);
        } finally {
            if (signal != null) {
                if (woken && outcome.isEmpty()) {
                    signals.released(name); // leaving with a wake-up meant for a waiter: pass it on
                }
                signals.leave(name, signal);
            }
        }
    }

    /**
     * One fresh attempt. When the store fails, the outcome is unknown (the write may have landed);
     * this thread holds nothing of {@code name}, so any document owned by it is an orphan of this very
     * attempt and is freed right away instead of blocking others until its lease runs out.
     */
    private AcquireAttempt attemptFresh(String name, String owner, Duration lease) {
        try {
            return store.tryAcquire(name, owner, lease);
        } catch (LockStoreException | LockInterruptedException failure) {
            if (failure instanceof LockStoreException store && !store.outcomeUnknown()) {
                throw failure; // never reached MongoDB: nothing to clean up
            }
            boolean wasInterrupted = Thread.interrupted();
            try {
                store.abandon(name, owner);
            } catch (LockException cleanupFailed) {
                failure.addSuppressed(cleanupFailed);
            } finally {
                if (wasInterrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            throw failure;
        }
    }

    private LockSession registerFresh(String name, String owner, Duration lease, AcquireAttempt.Granted granted,
                                      long sentAt) {
        HeldLock lock = new HeldLock(name, owner, granted, lease, sentAt);
        HeldLock previous = held.put(name, lock);
        if (previous != null) {
            // The store just gave the lock to us, so whoever this manager thought held it lost its lease.
            leaseLost(previous, "the lease ran out and another thread of this manager took the lock over (token "
                    + granted.fencingToken() + ")");
        }
        renewer.tracked(lock);
        fire(LockEvent.Kind.ACQUIRED, lock, 1);
        if (closed) {
            release(lock);
            throw closedException();
        }
        return new LockHold(this, lock, 1);
    }

    private Optional<LockSession> reenter(HeldLock lock) {
        int holds;
        lock.mutex.lock();
        try {
            if (lock.status == HeldLock.Status.RELEASED) {
                return Optional.empty();
            }
            if (lock.status == HeldLock.Status.LOST) {
                throw lost(lock, "cannot be re-entered");
            }
            long sentAt = clock.nanoTime();
            boolean moved;
            try {
                moved = store.reenter(lock.name, lock.owner, lock.version);
            } catch (LockException failure) {
                lostInOwnCall(lock, "re-entering failed and its outcome is unknown: " + failure.getMessage());
                throw failure;
            }
            if (!moved) {
                lostInOwnCall(lock, "the lease had run out and another owner took the lock over");
                throw lost(lock, "cannot be re-entered");
            }
            lock.version++;
            holds = ++lock.holds;
            lock.confirm(sentAt);
        } finally {
            lock.mutex.unlock();
        }
        fire(LockEvent.Kind.ACQUIRED, lock, holds);
        return Optional.of(new LockHold(this, lock, holds));
    }

    void release(HeldLock lock) {
        boolean freed = false;
        int remaining;
        lock.mutex.lock();
        try {
            switch (lock.status) {
                case RELEASED:
                    return; // the manager was closed and released it already
                case LOST:
                    remaining = lock.holds - 1;
                    dropHold(lock, remaining);
                    if (remaining == 0) {
                        freeIfStillOurs(lock);
                    }
                    throw lost(lock, "was not released by this close()");
                default:
                    break;
            }
            remaining = lock.holds - 1;
            boolean released;
            // Releasing is clean-up: an interrupted thread must still be able to let go of its lock,
            // so the driver does not see the interrupt; the flag is restored afterwards.
            boolean interrupted = Thread.interrupted();
            try {
                released = store.release(lock.name, lock.owner, lock.version, remaining);
            } catch (LockException failure) {
                boolean alreadyUnconfirmed = !lock.confirmedAt(clock.nanoTime());
                lostInOwnCall(lock, alreadyUnconfirmed
                        ? "its lease went unconfirmed for a whole lease time, and MongoDB could not be reached to release it"
                        : "releasing failed and its outcome is unknown: " + failure.getMessage());
                dropHold(lock, remaining);
                if (alreadyUnconfirmed) {
                    // The loss was known before the store failed: report the loss, with the failure attached.
                    LockLostException lost = lost(lock, "was not released by this close()");
                    lost.addSuppressed(failure);
                    throw lost;
                }
                throw new LockStoreException("Could not release lock \"" + lock.name + "\": " + failure.getMessage()
                        + " It is no longer renewed and frees itself when its lease (" + lock.lease + ") runs out.",
                        failure);
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            if (!released) {
                lostInOwnCall(lock, "the lease had run out and another owner took the lock over");
                dropHold(lock, remaining);
                throw lost(lock, "was not released by this close(): it is not ours any more");
            }
            lock.version++;
            lock.holds = remaining;
            if (remaining == 0) {
                lock.status = HeldLock.Status.RELEASED;
                held.remove(lock.name, lock);
                freed = true;
            }
        } finally {
            lock.mutex.unlock();
        }
        if (freed) {
            signals.released(lock.name);
        }
        fire(LockEvent.Kind.RELEASED, lock, remaining);
    }

    /** Caller holds the mutex: the owner's own store call found the loss; listeners hear it on this thread. */
    private void lostInOwnCall(HeldLock lock, String reason) {
        if (lock.markLost(reason)) {
            fire(LockEvent.Kind.LEASE_LOST, lock, 0);
        }
    }

    /** Caller holds the mutex: one hold of a lock that is not held any more goes; the last takes it off the table. */
    private void dropHold(HeldLock lock, int remaining) {
        lock.holds = remaining;
        if (remaining == 0) {
            held.remove(lock.name, lock);
        }
    }

    /**
     * A lease lost locally (unconfirmed, or a store failure) may still be ours in the store: a
     * version-checked release frees it early, and changes nothing if anyone else moved it.
     */
    private void freeIfStillOurs(HeldLock lock) {
        try {
            if (store.release(lock.name, lock.owner, lock.version, 0)) {
                signals.released(lock.name);
            }
        } catch (LockException stillDown) {
            LOG.log(Level.DEBUG, "could not free lost lock {0} early; it frees itself when its lease runs out", lock.name);
        }
    }

    boolean isHeld(HeldLock lock) {
        return !closed && lock.isHeldAt(clock.nanoTime());
    }

    /** Called by the renewer (and on takeover): never blocks behind the owner's own store call. */
    private void leaseLost(HeldLock lock, String reason) {
        boolean changed = false;
        if (lock.mutex.tryLock()) {
            try {
                changed = lock.markLost(reason);
            } finally {
                lock.mutex.unlock();
            }
        }
        // If the owner is mid-operation, that operation's compare-and-set will find the loss itself.
        if (changed) {
            LOG.log(Level.WARNING, "mongolock lost the lease of lock \"" + lock.name + "\" (token " + lock.fencingToken
                    + ", owner " + lock.owner + "): " + reason);
            notifyLossLater(lock);
        }
    }

    private synchronized void notifyLossLater(HeldLock lock) {
        if (listeners.isEmpty()) {
            return;
        }
        if (lossNotices == null) {
            lossNotices = Executors.newSingleThreadExecutor(new DaemonThreads("mongolock-notices-" + ownerPrefix));
        }
        try {
            lossNotices.execute(() -> fire(LockEvent.Kind.LEASE_LOST, lock, 0));
        } catch (RejectedExecutionException closing) {
            fire(LockEvent.Kind.LEASE_LOST, lock, 0);
        }
    }

    private void fire(LockEvent.Kind kind, HeldLock lock, int holdCount) {
        if (listeners.isEmpty()) {
            return;
        }
        LockEvent event = new LockEvent(kind, lock.name, lock.fencingToken, lock.owner, holdCount);
        for (LockListener listener : listeners) {
            try {
                listener.onEvent(event);
            } catch (RuntimeException broken) {
                LOG.log(Level.WARNING, "mongolock lock listener " + listener + " failed on " + event, broken);
            }
        }
    }

    /**
     * Stops renewals, then releases every lock still held (each with its version check); wakes all
     * waiters, who then fail. Store failures are logged: such locks free themselves when their
     * leases run out.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        renewer.close();
        releaseFeed.close();
        synchronized (this) {
            if (lossNotices != null) {
                lossNotices.shutdown(); // notices already queued are still delivered
            }
        }
        List<String> unreleased = new ArrayList<>();
        for (HeldLock lock : held.values()) {
            lock.mutex.lock();
            try {
                if (lock.status != HeldLock.Status.HELD) {
                    continue;
                }
                try {
                    store.release(lock.name, lock.owner, lock.version, 0);
                } catch (LockException failure) {
                    unreleased.add(lock.name);
                }
                lock.holds = 0;
                lock.status = HeldLock.Status.RELEASED;
                held.remove(lock.name, lock);
            } finally {
                lock.mutex.unlock();
            }
            signals.released(lock.name);
            fire(LockEvent.Kind.RELEASED, lock, 0);
        }
        signals.releasedAll();
        if (!unreleased.isEmpty()) {
            LOG.log(Level.WARNING, "mongolock could not release " + unreleased
                    + " on close; they free themselves when their leases run out");
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw closedException();
        }
    }

    private LockException closedException() {
        return new LockException("This lock manager (" + ownerPrefix + ") is closed: create a new one to acquire locks.");
    }

    private LockTimeoutException timeout(String name, Duration wait, AcquireAttempt.Busy busy) {
        StringBuilder message = new StringBuilder("Lock \"").append(name).append("\" was not acquired within ")
                .append(wait).append(": it is held by ").append(busy.holder().orElse("another owner"));
        busy.remainingLease().ifPresent(lease -> message.append(", whose lease runs out in ").append(lease)
                .append(" unless renewed"));
        message.append(". Wait longer, or use tryAcquire to go on without the lock.");
        return new LockTimeoutException(name, message.toString());
    }

    private LockLostException lost(HeldLock lock, String what) {
        return new LockLostException(lock.name, lock.fencingToken, "Lock \"" + lock.name + "\" (token " + lock.fencingToken
                + ") " + what + ": " + lock.lossReason + ". Work done under it since then was not protected;"
                + " close the sessions of this acquisition and acquire the lock again.");
    }

    private static LockInterruptedException interrupted(String name, InterruptedException cause) {
        Thread.currentThread().interrupt();
        return new LockInterruptedException("Interrupted while waiting for lock \"" + name
                + "\"; nothing was acquired and the interrupt flag is kept.", cause);
    }
}
