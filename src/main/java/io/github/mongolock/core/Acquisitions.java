package io.github.mongolock.core;

import io.github.mongolock.LockEvent;
import io.github.mongolock.LockException;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.OnLeaseLost;
import java.lang.System.Logger.Level;
import java.time.Duration;

/**
 * The steps of {@link LockCoordinator}'s wait loop that change what this manager holds or where it waits:
 * a fresh attempt and its registration, a re-entry, a hold handed over by another caller of this manager
 * (taken, or given back by a caller that left), joining and leaving the lock's queue, and what the options
 * ask of a granted hold. Every step that calls the store goes through the coordinator's call gate, so
 * close() either refuses it or sees (and releases) what it brought; the loop itself only decides when to
 * take which step and how long to park in between. Thread-safe.
 */
final class Acquisitions {

    private static final System.Logger LOG = System.getLogger(Acquisitions.class.getName());

    private final LockCoordinator coordinator;
    private final StoreCallGate calls;
    private final FreshAttempts fresh;
    private final OwnedLocks owned;
    private final QueuePresence queues;
    private final LocalWaiters waiters;
    private final SessionRenewer renewer;
    private final LockEvents events;

    Acquisitions(LockCoordinator coordinator, StoreCallGate calls, FreshAttempts fresh, OwnedLocks owned,
                 QueuePresence queues, LocalWaiters waiters, SessionRenewer renewer, LockEvents events) {
        this.coordinator = coordinator;
        this.calls = calls;
        this.fresh = fresh;
        this.owned = owned;
        this.queues = queues;
        this.waiters = waiters;
        this.renewer = renewer;
        this.events = events;
    }

    /** What the options ask of a granted hold beyond the grant: its minimum hold and its loss policy. */
    static LockSession applyOptions(LockSession session, LockOptions options) {
        LockHold hold = (LockHold) session;
        if (!options.holdAtLeast().isZero()) {
            HeldLock lock = hold.lock();
            lock.mutex().lock();
            try {
                lock.holdAtLeast(options.holdAtLeast());
            } finally {
                lock.mutex().unlock();
            }
        }
        if (options.onLeaseLost() == OnLeaseLost.INTERRUPT) {
            hold.onLeaseLost(hold::interruptBoundThread);
        }
        return hold;
    }

    /** Leaves the line of this manager's waiters; returns a lock handed to the caller meanwhile, if any. */
    HeldLock leaveLine(String name, LocalWaiters.Ticket ticket) {
        HeldLock handed = ticket.leave();
        waiters.remove(name, ticket);
        return handed;
    }

    /** A hold on a lock another caller of this manager handed to this one; bound to the calling thread. */
    LockSession takeHandedOver(HeldLock handed) {
        LockHold hold = new LockHold(coordinator, handed, 1);
        events.fire(LockEvent.Kind.ACQUIRED, handed, 1);
        refuseIfClosed(hold);
        return hold;
    }

    /** A lock handed to a caller that left with an exception meanwhile: released, or handed on. */
    void giveBack(HeldLock handed) {
        try {
            coordinator.release(handed);
        } catch (LockException releaseFailed) {
            LOG.log(Level.DEBUG, "mongolock could not release lock {0} handed to a caller that had left: {1}",
                    LockArguments.quote(handed.name), releaseFailed.getMessage());
        }
    }

    /** {@link QueuePresence#queueUp}, through the call gate. */
    boolean queueUp(String name, FreshAttempts.Outcome busy) {
        if (!busy.queued() && !calls.enterAcquisition()) {
            return false;
        }
        try {
            return queues.queueUp(name, busy);
        } finally {
            if (!busy.queued()) {
                calls.exit();
            }
        }
    }

    /**
     * The last caller of this manager to stop waiting for {@code name} without it takes the manager out
     * of its queue, so that the lock does not wait for a turn nobody takes. Once closing, close() leaves
     * every queue this manager may still be in.
     */
    void leaveQueue(String name) {
        if (waiters.anyWaiting(name) || owned.get(name) != null || !calls.enterAcquisition()) {
            return;
        }
        try {
            queues.leave(name);
        } finally {
            calls.exit();
        }
    }

    /** What {@link #acquireFresh} found: the registered hold, or what the store said of the lock held elsewhere. */
    record FreshAttempt(LockHold hold, FreshAttempts.Outcome busy) {
    }

    /** {@link #reenter} if {@code caller} is inside {@code name}'s acquisition; null when it is not (or no more). */
    LockSession reenterIfInside(String name, Thread caller) {
        HeldLock current = owned.get(name);
        return current != null && current.isBoundTo(caller) ? reenter(current) : null;
    }

    /** @return the new hold, or null when the lock was released meanwhile (the caller then acquires afresh) */
    LockSession reenter(HeldLock current) {
        if (!calls.enterAcquisition()) {
            throw coordinator.closedException();
        }
        LockHold hold;
        try {
            hold = owned.reenter(coordinator, current);
        } finally {
            calls.exit();
        }
        // Listeners run outside the gate, so one that closes the manager cannot wait for itself.
        if (hold != null) {
            events.fire(LockEvent.Kind.ACQUIRED, current, hold.holdCount());
        }
        return hold;
    }

    /**
     * One fresh attempt. The registration happens inside the call gate, so close() either refuses the
     * attempt or sees (and releases) what it was granted.
     */
    FreshAttempt acquireFresh(String name, Duration lease, String group) {
        if (!calls.enterAcquisition()) {
            throw coordinator.closedException();
        }
        LockHold hold;
        try {
            FreshAttempts.Outcome outcome = fresh.attempt(name, lease);
            if (!outcome.isGranted()) {
                return new FreshAttempt(null, outcome);
            }
            try {
                queues.granted(name); // a grant takes this manager out of the lock's queue
                hold = owned.register(coordinator, name, outcome.owner(), outcome.session(), outcome.granted(), group);
                renewer.tracked(hold.lock());
            } finally {
                fresh.settled(outcome.owner()); // registered: the session's check knows it from here on
            }
        } finally {
            calls.exit();
        }
        events.fire(LockEvent.Kind.ACQUIRED, hold.lock(), 1);
        refuseIfClosed(hold);
        return new FreshAttempt(hold, null);
    }

    /**
     * A grant that reached its caller after close() began: the lock is released here or by close()'s
     * sweep, and the caller is told the manager is closed.
     */
    void refuseIfClosed(LockHold hold) {
        if (!coordinator.isClosed()) {
            return;
        }
        LockException closing = coordinator.closedException();
        try {
            hold.close();
        } catch (LockException releaseFailed) {
            closing.addSuppressed(releaseFailed);
        }
        throw closing;
    }
}
