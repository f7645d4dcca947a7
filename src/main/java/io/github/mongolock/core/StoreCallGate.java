package io.github.mongolock.core;

import java.util.concurrent.TimeUnit;

/**
 * Counts the store calls of a coordinator that are under way, so that {@code close()} sweeps held
 * locks only after every grant already on its way has been registered (a grant landing after the
 * sweep would otherwise stay held in MongoDB for its whole lease), and returns only when no call can
 * still use the client the owner of the manager is about to close. Once closing, new acquisitions are
 * refused while releases still pass. Thread-safe.
 */
final class StoreCallGate {

    private int active;
    private boolean closing;

    /** @return false when the coordinator is closing: no new acquisition may start */
    synchronized boolean enterAcquisition() {
        if (closing) {
            return false;
        }
        active++;
        return true;
    }

    /** Releases of locks already held pass even while closing: they are what closing waits for. */
    synchronized void enterRelease() {
        active++;
    }

    synchronized void exit() {
        if (--active == 0) {
            notifyAll();
        }
    }

    /**
     * Refuses new acquisitions and waits until no call is under way, at most {@code timeoutNanos};
     * an interrupt does not cut the wait short (it is kept for the caller).
     *
     * @return whether every call finished in time
     */
    synchronized boolean closeAndDrain(long timeoutNanos) {
        closing = true;
        long deadline = System.nanoTime() + timeoutNanos;
        boolean interrupted = false;
        try {
            while (active > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException keepWaiting) {
                    interrupted = true;
                }
            }
            return true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
