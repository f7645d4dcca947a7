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
import java.util.Optional;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The locks one coordinator holds, at most one {@link HeldLock} per name, and everything their owner
 * does to them after the grant: re-entry, release (or hand-over to the next caller of this manager),
 * and the sweep when the coordinator closes. The owner's compare-and-set of its hold count and its repair
 * are {@link HoldCountChanges}'s, and recording a loss is {@link LeaseLosses}'s.
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
    /** New owner ids for hand-overs, and the acquisitions under way the session check must not free. */
    private final FreshAttempts fresh;
    private final Sessions sessions;
    private final Consumer<HeldLock> onGrant;
    private final LockMetrics metrics;
    private final LeaseLosses losses;
    private final HoldCountChanges holdCounts;
    private final ConcurrentHashMap<String, HeldLock> held = new ConcurrentHashMap<>();

    /**
     * @param fresh     new owner ids of this manager for a hand-over's grant, and the acquisitions under way
     * @param sessions  the session a hand-over's grant is made under
     * @param onGrant   told of every grant made here (a hand-over), e.g. to renew its lease
     * @param losses    records the losses found here, as the renewer's are
     */
    OwnedLocks(LockStore store, MonotonicClock clock, ReleaseSignals signals, LockEvents events,
               FreshAttempts fresh, Sessions sessions, Consumer<HeldLock> onGrant, LockMetrics metrics, LeaseLosses losses) {
        this.metrics = metrics;
        this.store = store;
        this.clock = clock;
        this.signals = signals;
        this.events = events;
        this.fresh = fresh;
        this.sessions = sessions;
        this.onGrant = onGrant;
        this.losses = losses;
        this.holdCounts = new HoldCountChanges(store, clock, losses);
    }

    HeldLock get(String name) {
        return held.get(name);
    }

    Collection<HeldLock> all() {
        return held.values();
    }

    /** Whether {@code owner} is an acquisition held here now (not released, not lost). */
    boolean holds(String owner) {
        for (HeldLock lock : held.values()) {
            if (lock.owner.equals(owner) && lock.status == HeldLock.Status.HELD) {
                return true;
            }
        }
        return false;
    }

    /** A fresh grant; the returned hold is bound to the calling thread. */
    LockHold register(LockCoordinator coordinator, String name, String owner, Session session,
                      AcquireAttempt.Granted granted, String group) {
        HeldLock lock = new HeldLock(name, owner, granted, session, clock.nanoTime(), 0, group);
        HeldLock previous = held.put(name, lock);
        if (previous != null) {
            // The store just gave the lock to us, so whoever this manager thought held it lost its lease.
            losses.leaseLost(previous, "the lease ran out and another caller of this manager took the lock over (token "
                    + granted.fencingToken() + ")");
        }
        return new LockHold(coordinator, lock, 1);
    }

    /**
     * One more hold for a caller already inside {@code lock}; null when the lock was released meanwhile
     * (the caller then acquires afresh). A store failure leaves the hold as it was and is thrown.
     */
    LockHold reenter(LockCoordinator coordinator, HeldLock lock) {
        lock.mutex().lock();
        try {
            losses.beforeOwnCall(lock);
            if (lock.status == HeldLock.Status.RELEASED) {
                return null;
            }
            if (lock.status == HeldLock.Status.LOST) {
                throw losses.lost(lock, "cannot be re-entered");
            }
            int target = lock.holds + 1;
            OptionalLong version = holdCounts.changeHolds(lock, target);
            if (version.isEmpty()) {
                throw losses.lost(lock, "cannot be re-entered");
            }
            lock.version = version.getAsLong();
            if (!lock.confirmedAt(clock.nanoTime())) {
                // The session's lease had ended unconfirmed before this answer: it stays lost (isHeld() never comes
                // back). The store counts one hold more than the sessions; the last close frees the lock all the same.
                losses.lostInOwnCall(lock, "its session's lease (" + lock.lease() + ") ended unconfirmed before this re-entry was answered");
                throw losses.lost(lock, "cannot be re-entered");
            }
            lock.holds = target;
            return new LockHold(coordinator, lock, target);
        } finally {
            lock.mutex().unlock();
            losses.afterOwnCall(lock);
        }
    }


    /**
     * Releases one hold. The last one, when {@code waiters} has a caller of this manager waiting for the
     * lock (and the streak allows it), hands the lock to that caller in the same round trip; with
     * {@code waiters} null (the manager is closing) it only frees it.
     */
    void release(HeldLock lock, LocalWaiters waiters) {
        int remaining;
        HandOver handOver = HandOver.NOT_MADE;
        lock.mutex().lock();
        try {
            losses.beforeOwnCall(lock);
            if (lock.status == HeldLock.Status.RELEASED) {
                return; // the manager was closed and released it already
            }
            remaining = lock.holds - 1;
            if (lock.status == HeldLock.Status.LOST) {
                dropHold(lock, remaining);
                if (remaining == 0) {
                    losses.freeInBackground(lock);
                    throw losses.lost(lock, "lost its lease before this close(), which waits for nothing: if nobody"
                            + " took the lock over, it is freed in the background");
                }
                throw losses.lost(lock, "lost its lease before this close() (the outer holds of this acquisition"
                        + " free it when they close)");
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
            lock.mutex().unlock();
            losses.afterOwnCall(lock);
        }
        if (handOver != HandOver.MADE && remaining == 0) {
            signals.released(lock.name);
        }
        events.fire(LockEvent.Kind.RELEASED, lock, remaining);
    }

    /** Caller holds the mutex: the plain release of one hold (the last frees the lock). */
    private void releaseHold(HeldLock lock, int remaining) {
        OptionalLong version;
        try {
            version = holdCounts.changeHolds(lock, remaining);
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
            throw losses.lost(lock, "was not released by this close(): it is not ours any more");
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
        Session session;
        try {
            session = sessions.forGrant(next.lease);
        } catch (LockException noSession) {
            next.fail();
            return HandOver.NOT_MADE; // released plainly, which fails the same way if the store is down
        }
        String successorOwner = fresh.nextOwner();
        fresh.pending().add(successorOwner);
        try {
            return handOver(lock, next, session, successorOwner);
        } finally {
            fresh.settled(successorOwner);
        }
    }

    private HandOver handOver(HeldLock lock, LocalWaiters.Ticket next, Session session, String successorOwner) {
        AcquireAttempt result;
        try {
            result = withoutInterrupt(() -> store.handOver(lock.name, lock.owner, lock.version, successorOwner, session.id));
        } catch (LockStoreException | LockInterruptedException failure) {
            next.fail();
            session.checkSoon(); // a late hand-over may land after the clean-up below
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
        HeldLock successor = new HeldLock(lock.name, successorOwner, granted, session, clock.nanoTime(),
                lock.streak + 1, lock.group);
        held.put(lock.name, successor);
        lock.holds = 0;
        lock.status = HeldLock.Status.RELEASED;
        onGrant.accept(successor);
        // A session that ended while the hand-over was on its way: the renewer reported its locks before this one
        // was in the table, so it would never hear of it. Reported here (the successor's mutex is free).
        losses.afterOwnCall(successor);
        next.grant(successor);
        return HandOver.MADE;
    }

    /** Caller holds the mutex: the last release could not be told to MongoDB. */
    private LockException lastReleaseFailed(HeldLock lock, LockException failure) {
        lock.session.checkSoon(); // the release may still land, or never: the session's check frees the lock
        if (!lock.confirmedAt(clock.nanoTime())) {
            // The loss was known before the store failed: report the loss, with the failure attached.
            losses.lostInOwnCall(lock, "its lease went unconfirmed for a whole lease time, and MongoDB could not be reached to release it");
            dropHold(lock, 0);
            LockLostException lost = losses.lost(lock, "was not released by this close()");
            lost.addSuppressed(failure);
            return lost;
        }
        // The caller let go, so this is no loss. The lock is no longer renewed: MongoDB frees it when its lease ends.
        markReleased(lock);
        events.fire(LockEvent.Kind.RELEASED, lock, 0);
        return new LockStoreException("Could not release lock \"" + lock.name + "\": " + failure.getMessage()
                + " It is no longer renewed and frees itself when its lease (" + lock.lease() + ") runs out"
                + (lock.holdLeftNanos(clock.nanoTime()) > 0 ? ", which may end its minimum hold early." : "."),
                failure, !(failure instanceof LockStoreException store) || store.outcomeUnknown());
    }

    private void markReleased(HeldLock lock) {
        lock.holds = 0;
        lock.status = HeldLock.Status.RELEASED;
        held.remove(lock.name, lock);
        if (metrics != LockMetrics.NONE) {
            metrics.holdEnded(lock.group, clock.nanoTime() - lock.grantedAtNanos);
        }
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


    /** Caller holds the mutex: one hold of a lock that is not held any more goes; the last takes it off the table. */
    private void dropHold(HeldLock lock, int remaining) {
        lock.holds = remaining;
        if (remaining == 0) {
            held.remove(lock.name, lock);
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
            lock.mutex().lock();
            try {
                if (lock.status != HeldLock.Status.HELD) {
                    continue;
                }
                try {
                    holdCounts.changeHolds(lock, 0);
                } catch (LockException failure) {
                    unreleased.add(lock.name);
                }
                markReleased(lock);
            } finally {
                lock.mutex().unlock();
            }
            signals.released(lock.name);
            events.fire(LockEvent.Kind.RELEASED, lock, 0);
        }
        return unreleased;
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

    /** The owner of a lock held here and bound to {@code caller} (one of them when several), if any. */
    Optional<String> boundTo(Thread caller) {
        return held.values().stream().filter(lock -> lock.isBoundTo(caller)).map(lock -> lock.owner).findFirst();
    }
}
