package io.github.mongolock.core;

import io.github.mongolock.LockSession;
import java.util.concurrent.atomic.AtomicBoolean;

/** One hold of a {@link HeldLock}: the {@link LockSession} handed to the caller. */
final class LockHold implements LockSession {

    private final LockCoordinator coordinator;
    private final HeldLock lock;
    private final int holdCount;
    private final AtomicBoolean closed = new AtomicBoolean();

    LockHold(LockCoordinator coordinator, HeldLock lock, int holdCount) {
        this.coordinator = coordinator;
        this.lock = lock;
        this.holdCount = holdCount;
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
    public boolean isHeld() {
        return !closed.get() && coordinator.isHeld(lock);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            coordinator.release(lock);
        }
    }

    @Override
    public String toString() {
        return "LockSession[name=" + lock.name + ", token=" + lock.fencingToken + ", holdCount=" + holdCount
                + ", owner=" + lock.owner + ", held=" + isHeld() + "]";
    }
}
