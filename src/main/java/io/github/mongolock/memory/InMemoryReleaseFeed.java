package io.github.mongolock.memory;

import io.github.mongolock.core.ReleaseFeed;
import java.util.List;

/**
 * One manager's push wake-up on an {@link InMemoryLockStore}: the store calls the listener on the releasing
 * thread, right after the release (MongoDB's change stream delivers on a thread of its own, a moment later;
 * the coordinator's listener only wakes parked waiters, so either is fine). Never misses a notice.
 * Thread-safe.
 */
final class InMemoryReleaseFeed implements ReleaseFeed {

    private final List<Listener> storeListeners;
    /** Guarded by {@code this}. */
    private Listener listener;
    /** Guarded by {@code this}. */
    private boolean closed;

    InMemoryReleaseFeed(List<Listener> storeListeners) {
        this.storeListeners = storeListeners;
    }

    @Override
    public synchronized void start(Listener listener) {
        if (closed || this.listener != null) {
            return;
        }
        this.listener = listener;
        storeListeners.add(listener);
    }

    @Override
    public synchronized Status status() {
        return closed ? Status.CLOSED : listener == null ? Status.IDLE : Status.PUSHING;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (listener != null) {
            storeListeners.remove(listener);
        }
    }
}
