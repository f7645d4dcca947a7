package io.github.mongolock.core;

import io.github.mongolock.LockException;
import io.github.mongolock.LockSession;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One hold of a {@link HeldLock}: the {@link LockSession} handed to the caller. It is bound to the
 * thread that acquired it (nested acquires there re-enter) until it is closed, {@link #detach()
 * detached} or {@link #attach() attached} to another thread. Thread-safe.
 */
final class LockHold implements LockSession {

    private final LockCoordinator coordinator;
    private final HeldLock lock;
    private final int holdCount;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Guarded by {@code this}; null while detached. */
    private Thread boundTo;

    LockHold(LockCoordinator coordinator, HeldLock lock, int holdCount) {
        this.coordinator = coordinator;
        this.lock = lock;
        this.holdCount = holdCount;
        this.boundTo = Thread.currentThread();
        lock.bind(boundTo);
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
        return !closed.get() && coordinator.isHeld(lock);
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
        if (closed.get()) {
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
    public void close() {
        if (closed.compareAndSet(false, true)) {
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
