package io.github.mongolock;

/**
 * Told about acquisitions, releases and lost leases of one manager. Called on the thread that
 * acquired or released, and on the manager's {@code mongolock-notices} thread for losses found by a
 * renewal (so a slow listener never delays renewals): keep it short all the same.
 * An exception thrown by a listener is logged and never affects the lock.
 */
@FunctionalInterface
public interface LockListener {
    void onEvent(LockEvent event);

    /**
     * A semaphore's permits were granted, released or lost ({@link PermitEvent}); does nothing unless overridden.
     * Called on the thread that acquired or closed the hold, and on the notice thread for losses found by a renewal.
     */
    default void onPermitEvent(PermitEvent event) {
    }

    /**
     * A read-write lock's access was granted, given back or lost ({@link ReadWriteEvent}); does nothing unless
     * overridden. Called on the thread that acquired or closed the hold, and on the notice thread for losses.
     */
    default void onReadWriteEvent(ReadWriteEvent event) {
    }
}
