package io.github.mongolock.core;

import io.github.mongolock.LockException;
import io.github.mongolock.LockSession;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One hold of a {@link HeldLock}: the {@link LockSession} handed to the caller. It is bound to the
 * thread that acquired it (nested acquires there re-enter) until it is closed, {@link #detach()
 * detached} or {@link #attach() attached} to another thread. Thread-safe.
 */
final class LockHold implements LockSession {

    private final LockCoordinator coordinator;
    private final HeldLock lock;
    private final int holdCount;
    private static final AtomicIntegerFieldUpdater<LockHold> CLOSED =
            AtomicIntegerFieldUpdater.newUpdater(LockHold.class, "closed");
    /** 1 once closed; a field updater rather than an AtomicBoolean saves an object per session. */
    private volatile int closed;
    /** Guarded by {@code this}; null while detached. */
    private Thread boundTo;
    /** Guarded by {@code this}: this session's loss actions, taken back from the lock when it closes (null: none). */
    private List<Runnable> lossActions;

    LockHold(LockCoordinator coordinator, HeldLock lock, int holdCount) {
        this.coordinator = coordinator;
        this.lock = lock;
        this.holdCount = holdCount;
        this.boundTo = Thread.currentThread();
        lock.bind(boundTo);
    }

    private boolean isClosed() {
        return closed != 0;
    }

    HeldLock lock() {
        return lock;
    }

    @Override
    public String name() {
        return lock.name;
    }

    @Override
    public long fencingToken() {
        return lock.fencingToken;
    }

    @Override
    public int holdCount() {
        return holdCount;
    }

    @Override
    public String owner() {
        return lock.owner;
    }

    @Override
    public boolean isHeld() {
        return !isClosed() && coordinator.isHeld(lock);
    }

    @Override
    public synchronized LockSession detach() {
        if (boundTo != null) {
            lock.unbind(boundTo);
            boundTo = null;
        }
        return this;
    }

    @Override
    public synchronized LockSession attach() {
        if (isClosed()) {
            throw new LockException("This session of lock \"" + lock.name + "\" (token " + lock.fencingToken
                    + ") is closed and cannot be attached to a thread: acquire the lock again.");
        }
        Thread caller = Thread.currentThread();
        if (boundTo != caller) {
            detach();
            lock.bind(caller);
            boundTo = caller;
        }
        return this;
    }

    @Override
    public LockSession onLeaseLost(Runnable action) {
        Objects.requireNonNull(action, "action");
        Runnable whileOpen = new Runnable() {
            @Override
            public void run() {
                if (!isClosed()) {
                    action.run();
                }
            }

            @Override
            public String toString() {
                return action.toString();
            }
        };
        synchronized (this) {
            if (isClosed()) {
                return this;
            }
            if (lossActions == null) {
                lossActions = new ArrayList<>(2);
            }
            lossActions.add(whileOpen);
        }
        if (!lock.addLossAction(whileOpen)) {
            LockEvents.runLossAction(whileOpen, lock.name); // the loss was reported already
        }
        return this;
    }

    /** Interrupts the thread this hold is bound to, if any: {@link io.github.mongolock.OnLeaseLost#INTERRUPT}. */
    void interruptBoundThread() {
        Thread bound;
        synchronized (this) {
            bound = boundTo;
        }
        if (bound != null) {
            bound.interrupt();
        }
    }

    @Override
    public void close() {
        if (CLOSED.compareAndSet(this, 0, 1)) {
            synchronized (this) {
                if (lossActions != null) {
                    lossActions.forEach(lock::removeLossAction);
                    lossActions = null;
                }
            }
            detach();
            coordinator.release(lock);
        }
    }

    @Override
    public String toString() {
        return "LockSession[name=" + lock.name + ", token=" + lock.fencingToken + ", holdCount=" + holdCount
                + ", owner=" + lock.owner + ", held=" + isHeld() + "]";
    }
}
