package io.github.mongolock;

/**
 * Told about acquisitions, releases and lost leases of one manager. Called on the thread that
 * acquired or released, and on the renewal thread for lost leases: keep it short and non-blocking.
 * An exception thrown by a listener is logged and never affects the lock.
 */
@FunctionalInterface
public interface LockListener {
    void onEvent(LockEvent event);
}
