package io.github.mongolock.core;

import io.github.mongolock.LockEvent;
import io.github.mongolock.LockException;
import io.github.mongolock.LockInterruptedException;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockStoreException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The locks one coordinator holds, at most one {@link HeldLock} per name, and everything their owner
 * does to them after the grant: re-entry, release (or hand-over to the next caller of this manager),
 * recording a loss, and the sweep when the coordinator closes.
 *
 * <p>Two rules keep a valid hold from being declared lost by mistake. A loss is recorded only when
 * MongoDB answered that the lock is not this acquisition's any more (a compare-and-set and then a
 * {@link LockStore#resync} both missed), or when the lease went unconfirmed for a whole lease time;
 * a store failure alone never counts, since the request may never have left the client. And store
 * calls that clean up or only book-keep (re-entry, release, resync) do not see the caller's
 * interrupt, which would make the driver refuse them half-way; the flag is restored afterwards.
 * Thread-safe.
 */
final class OwnedLocks {

    private static final System.Logger LOG = System.getLogger(OwnedLocks.class.getName());

    private final LockStore store;
    private final MonotonicClock clock;
    private final ReleaseSignals signals;
    private final LockEvents events;
    private final Supplier<String> nextOwner;
    private final Consumer<HeldLock> onGrant;
    private final LockMetrics metrics;
    private final ConcurrentHashMap<String, HeldLock> held = new ConcurrentHashMap<>();

    /**
     * @param nextOwner a new owner id of this manager, for a hand-over's grant
     * @param onGrant   told of every grant made here (a hand-over), e.g. to renew its lease
     */
    OwnedLocks(LockStore store, MonotonicClock clock, ReleaseSignals signals, LockEvents events,
               Supplier<String> nextOwner, Consumer<HeldLock> onGrant, LockMetrics metrics) {
        this.metrics = metrics;
        this.store = store;
        this.clock = clock;
        this.signals = signals;
        this.events = events;
        this.nextOwner = nextOwner;
        this.onGrant = onGrant;
    }

    HeldLock get(String name) {
        return held.get(name);
    }

    Collection<HeldLock> all() {
        return held.values();
    }

    /** A fresh grant; the returned hold is bound to the calling thread. */
    LockHold register(LockCoordinator coordinator, String name, String owner, Duration lease,
                      AcquireAttempt.Granted granted, long sentAtNanos, String group) {
        HeldLock lock = new HeldLock(name, owner, granted, lease, sentAtNanos, clock.nanoTime(), 0, group);
        HeldLock previous = held.put(name, lock);
        if (previous != null) {
            // The store just gave the lock to us, so whoever this manager thought held it lost its lease.
            leaseLost(previous, "the lease ran out and another caller of this manager took the lock over (token "
                    + granted.fencingToken() + ")");
        }
        return new LockHold(coordinator, lock, 1);
    }

    /**
     * One more hold for a caller already inside {@code lock}; empty when the lock was released meanwhile
     * (the caller then acquires afresh). A store failure leaves the hold as it was and is thrown.
     */
    Optional<LockHold> reenter(LockCoordinator coordinator, HeldLock lock) {
        lock.mutex.lock();
        try {
            if (lock.status == HeldLock.Status.RELEASED) {
                return Optional.empty();
            }
            if (lock.status == HeldLock.Status.LOST) {
                throw lost(lock, "cannot be re-entered");
            }
            long sentAt = clock.nanoTime();
            int target = lock.holds + 1;
            OptionalLong version = changeHolds(lock, target);
            if (version.isEmpty()) {
                throw lost(lock, "cannot be re-entered");
            }
            lock.version = version.getAsLong();
            if (!lock.confirm(sentAt, clock.nanoTime())) {
                // The lease had ended unconfirmed before this answer: it stays lost (isHeld() never comes back).
                // The store counts one hold more than the sessions; the last close frees the lock all the same.
                lostInOwnCall(lock, "its lease (" + lock.lease + ") ended unconfirmed before this re-entry was answered");
                throw lost(lock, "cannot be re-entered");
            }
            lock.holds = target;
            return Optional.of(new LockHold(coordinator, lock, target));
        } finally {
            lock.mutex.unlock();
        }
    }

    /**
     * The owner's compare-and-set from the version it last wrote to {@code holds} holds (0 frees the lock).
     * When it misses, either the lock is not this acquisition's any more, or an earlier call whose answer
     * was lost did move the version: {@link LockStore#resync} tells which, and in the second case sets
     * the count. A store failure is thrown and changes nothing here. Caller holds the mutex.
     *
     * @return the new version, or empty when the lock belongs to another acquisition now (recorded as lost)
     */
    private OptionalLong changeHolds(HeldLock lock, int holds) {
        long version = lock.version;
        long keepNanos = holds == 0 ? lock.holdLeftNanos(clock.nanoTime()) : 0;
        if (keepNanos > 0) {
            return releaseKeeping(lock, version, keepNanos);
        }
        boolean moved = withoutInterrupt(() -> holds > lock.holds
                ? store.reenter(lock.name, lock.owner, version)
                : store.release(lock.name, lock.owner, version, holds));
        if (moved) {
            return OptionalLong.of(version + 1);
        }
        return resynced(lock, holds);
    }

    /**
     * The last release of an acquisition whose minimum hold has {@code keepNanos} left: the lock stays
     * taken, unrenewed, for that long. The time left is counted from when this request is sent, and the
     * hold from when the grant's answer arrived, so the lock is kept at least the minimum after the grant.
     * A miss is repaired like any compare-and-set of the owner's; the repaired state is then released
     * the same way. Caller holds the mutex.
     */
    private OptionalLong releaseKeeping(HeldLock lock, long version, long keepNanos) {
        // Whole milliseconds, rounded up: the document counts in milliseconds, and rounding down would shorten the hold.
        Duration keep = Duration.ofMillis((keepNanos + 999_999) / 1_000_000);
        if (withoutInterrupt(() -> store.releaseKeeping(lock.name, lock.owner, version, keep))) {
            return OptionalLong.of(version + 1);
        }
        OptionalLong synced = resynced(lock, 1);
        if (synced.isEmpty()) {
            return synced;
        }
        long repaired = synced.getAsLong();
        Duration keepNow = Duration.ofMillis((lock.holdLeftNanos(clock.nanoTime()) + 999_999) / 1_000_000);
        boolean kept = withoutInterrupt(() -> keepNow.isZero()
                ? store.release(lock.name, lock.owner, repaired, 0)
                : store.releaseKeeping(lock.name, lock.owner, repaired, keepNow));
        if (!kept) {
            lostInOwnCall(lock, "the lease had run out and another owner took the lock over");
            return OptionalLong.empty();
        }
        return OptionalLong.of(repaired + 1);
    }

    /** After a missed compare-and-set: sets the count if the lock is still this acquisition's, else records the loss. */
    private OptionalLong resynced(HeldLock lock, int holds) {
        OptionalLong synced = withoutInterrupt(() -> store.resync(lock.name, lock.owner, lock.leaseId, holds));
        if (synced.isEmpty()) {
            lostInOwnCall(lock, "the lease had run out and another owner took the lock over");
        }
        return synced;
    }

    /**
     * Releases one hold. The last one, when {@code waiters} has a caller of this manager waiting for the
     * lock (and the streak allows it), hands the lock to that caller in the same round trip; with
     * {@code waiters} null (the manager is closing) it only frees it.
     */
    void release(HeldLock lock, LocalWaiters waiters) {
        int remaining;
        HandOver handOver = HandOver.NOT_MADE;
        lock.mutex.lock();
        try {
            if (lock.status == HeldLock.Status.RELEASED) {
                return; // the manager was closed and released it already
            }
            remaining = lock.holds - 1;
            if (lock.status == HeldLock.Status.LOST) {
                dropHold(lock, remaining);
                if (remaining == 0) {
                    freeIfStillOurs(lock);
                }
                throw lost(lock, "was not released by this close()");
            }
            // A minimum hold not yet over keeps the lock from everyone, this manager's next caller included.
            boolean keeps = remaining == 0 && lock.holdLeftNanos(clock.nanoTime()) > 0;
            LocalWaiters.Ticket next = remaining == 0 && waiters != null && !keeps ? waiters.claimNext(lock) : null;
            if (next != null) {
                handOver = handOver(lock, next);
            }
            if (handOver == HandOver.NOT_MADE) {
                releaseHold(lock, remaining);
            }
        } finally {
            lock.mutex.unlock();
        }
        if (handOver == HandOver.MADE) {
            signals.handedOver(lock.name);
        } else if (remaining == 0) {
            signals.released(lock.name);
        }
        events.fire(LockEvent.Kind.RELEASED, lock, remaining);
    }

    /** Caller holds the mutex: the plain release of one hold (the last frees the lock). */
    private void releaseHold(HeldLock lock, int remaining) {
        OptionalLong version;
        try {
            version = changeHolds(lock, remaining);
        } catch (LockStoreException | LockInterruptedException failure) {
            if (remaining > 0) {
                // Nothing is lost: the outer holds keep the lock, MongoDB's count is repaired by the owner's
                // next call (its compare-and-set misses if this one landed), and the last release frees it.
                LOG.log(Level.DEBUG, "mongolock could not record a nested release of lock {0}; the next call repairs it: {1}",
                        lock.name, failure.getMessage());
                lock.holds = remaining;
                version = OptionalLong.of(lock.version);
            } else {
                throw lastReleaseFailed(lock, failure);
            }
        }
        if (version.isEmpty()) {
            dropHold(lock, remaining);
            throw lost(lock, "was not released by this close(): it is not ours any more");
        }
        lock.version = version.getAsLong();
        if (remaining == 0) {
            markReleased(lock);
        } else {
            lock.holds = remaining;
        }
    }

    private enum HandOver {
        /** The lock is the next caller's. */
        MADE,
        /** The hand-over's outcome was unknown, and both acquisitions were then freed: the lock is free. */
        FREED,
        /** Nothing changed (not ours at this version, or the request never left): release as usual. */
        NOT_MADE
    }

    /**
     * Caller holds the mutex; {@code lock} is held with one hold left and {@code next} is claimed. One
     * compare-and-set from this acquisition to a new one of this manager for {@code next}'s caller.
     * When its answer is lost, whichever of the two acquisitions is in the document is freed (both
     * changes are owner-checked, the old one's first); if that cannot be done either, the release fails
     * as usual.
     */
    private HandOver handOver(HeldLock lock, LocalWaiters.Ticket next) {
        String successorOwner = nextOwner.get();
        long sentAt = clock.nanoTime();
        AcquireAttempt result;
        try {
            result = withoutInterrupt(() -> store.handOver(lock.name, lock.owner, lock.version, successorOwner, next.lease));
        } catch (LockStoreException | LockInterruptedException failure) {
            next.fail();
            if (failure instanceof LockStoreException unreachable && !unreachable.outcomeUnknown()) {
                return HandOver.NOT_MADE;
            }
            LockException cleanUpFailed = null;
            try {
                // The old acquisition first: if its version-checked release matches, the hand-over can no
                // longer land; if it missed because the hand-over landed, the abandon frees that. The other
                // order lets a late hand-over land between the two and leaves a lock nobody renews.
                withoutInterrupt(() -> {
                    boolean released = store.release(lock.name, lock.owner, lock.version, 0);
                    store.abandon(lock.name, successorOwner);
                    return released;
                });
            } catch (LockException stillUnknown) {
                failure.addSuppressed(stillUnknown);
                cleanUpFailed = failure;
            }
            if (cleanUpFailed != null) {
                throw lastReleaseFailed(lock, cleanUpFailed);
            }
            markReleased(lock);
            return HandOver.FREED;
        }
        if (!(result instanceof AcquireAttempt.Granted granted)) {
            next.fail();
            return HandOver.NOT_MADE;
        }
        // The successor reports under the releaser's group: the same name, so the same template in practice.
        HeldLock successor = new HeldLock(lock.name, successorOwner, granted, next.lease, sentAt, clock.nanoTime(),
                lock.streak + 1, lock.group);
        held.put(lock.name, successor);
        lock.holds = 0;
        lock.status = HeldLock.Status.RELEASED;
        onGrant.accept(successor);
        next.grant(successor);
        return HandOver.MADE;
    }

    /** Caller holds the mutex: the last release could not be told to MongoDB. */
    private LockException lastReleaseFailed(HeldLock lock, LockException failure) {
        if (!lock.confirmedAt(clock.nanoTime())) {
            // The loss was known before the store failed: report the loss, with the failure attached.
            lostInOwnCall(lock, "its lease went unconfirmed for a whole lease time, and MongoDB could not be reached to release it");
            dropHold(lock, 0);
            LockLostException lost = lost(lock, "was not released by this close()");
            lost.addSuppressed(failure);
            return lost;
        }
        // The caller let go, so this is no loss. The lock is no longer renewed: MongoDB frees it when its lease ends.
        markReleased(lock);
        events.fire(LockEvent.Kind.RELEASED, lock, 0);
        return new LockStoreException("Could not release lock \"" + lock.name + "\": " + failure.getMessage()
                + " It is no longer renewed and frees itself when its lease (" + lock.lease + ") runs out"
                + (lock.holdLeftNanos(clock.nanoTime()) > 0 ? ", which may end its minimum hold early." : "."),
                failure, !(failure instanceof LockStoreException store) || store.outcomeUnknown());
    }

    private void markReleased(HeldLock lock) {
        lock.holds = 0;
        lock.status = HeldLock.Status.RELEASED;
        held.remove(lock.name, lock);
        metrics.holdEnded(lock.group, clock.nanoTime() - lock.grantedAtNanos);
    }

    /** Fresh acquisitions held now (not lost), by metrics group. */
    Map<String, Long> heldByGroup() {
        Map<String, Long> byGroup = new HashMap<>();
        for (HeldLock lock : held.values()) {
            if (lock.status == HeldLock.Status.HELD) {
                byGroup.merge(lock.group, 1L, Long::sum);
            }
        }
        return byGroup;
    }

    /** Caller holds the mutex: the owner's own store call found the loss; listeners hear it on this thread. */
    private void lostInOwnCall(HeldLock lock, String reason) {
        if (lock.markLost(reason)) {
            metrics.leaseLost(lock.group);
            events.lossNow(lock);
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
        if (lock.mutex.tryLock()) {
            try {
                changed = lock.markLost(reason);
            } finally {
                lock.mutex.unlock();
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

    /**
     * Releases every lock still held, whatever its hold count, on the closing thread even if it is
     * interrupted. Locks already lost stay in the table, so their sessions still report the loss.
     *
     * @return the names MongoDB could not be told about (they free themselves when their leases run out)
     */
    List<String> releaseAll() {
        List<String> unreleased = new ArrayList<>();
        for (HeldLock lock : held.values()) {
            lock.mutex.lock();
            try {
                if (lock.status != HeldLock.Status.HELD) {
                    continue;
                }
                try {
                    changeHolds(lock, 0);
                } catch (LockException failure) {
                    unreleased.add(lock.name);
                }
                markReleased(lock);
            } finally {
                lock.mutex.unlock();
            }
            signals.released(lock.name);
            events.fire(LockEvent.Kind.RELEASED, lock, 0);
        }
        return unreleased;
    }

    LockLostException lost(HeldLock lock, String what) {
        return new LockLostException(lock.name, lock.fencingToken, "Lock \"" + lock.name + "\" (token " + lock.fencingToken
                + ") " + what + ": " + lock.lossReason + ". Work done under it since then was not protected;"
                + " close the sessions of this acquisition and acquire the lock again.");
    }

    /**
     * Runs a store call that must complete even on an interrupted thread (the driver refuses to start
     * I/O there, or aborts it half-way, which makes the outcome unknown); the flag is restored.
     */
    static <T> T withoutInterrupt(Supplier<T> call) {
        boolean interrupted = Thread.interrupted();
        try {
            return call.get();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
