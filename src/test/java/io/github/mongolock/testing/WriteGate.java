package io.github.mongolock.testing;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Counts the writes {@link ReplicaSetFaults} has forwarded and not yet seen answered, and freezes them: while
 * frozen, a write waits before it is forwarded, and the freeze begins once every write already forwarded was
 * answered. What the holder of a freeze reads through its own client is then one moment of the data, as a
 * snapshot or a pre-image must be. One freeze at a time; it may be ended on another thread than the one that
 * began it (a lost reply's capture ends on the thread that reads the reply). Thread-safe.
 */
final class WriteGate {

    /** The writes already forwarded are answered within the clients' own timeouts, or their connections die. */
    static final Duration DRAIN_WITHIN = Duration.ofSeconds(10);

    private final Semaphore freezer = new Semaphore(1);
    private final Object monitor = new Object();
    private boolean frozen;
    private int inFlight;

    /** A write is about to be forwarded: waits while frozen, then counts it. */
    void enter() throws InterruptedException {
        synchronized (monitor) {
            while (frozen) {
                monitor.wait();
            }
            inFlight++;
        }
    }

    /** A counted write was answered, or its connection closed first. */
    void exit() {
        synchronized (monitor) {
            inFlight--;
            monitor.notifyAll();
        }
    }

    /**
     * Holds every write not yet forwarded and waits until the forwarded ones are answered.
     *
     * @throws IllegalStateException when they are not answered within {@link #DRAIN_WITHIN} (the freeze is then
     *                               not held)
     */
    Freeze freeze() {
        try {
            freezer.acquire();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting to freeze the writes", interrupted);
        }
        Freeze freeze = new Freeze();
        long deadline = System.nanoTime() + DRAIN_WITHIN.toNanos();
        synchronized (monitor) {
            frozen = true;
            long left;
            while (inFlight > 0 && (left = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(monitor, left);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            if (inFlight > 0) {
                int stuck = inFlight;
                freeze.close();
                throw new IllegalStateException(stuck + " write(s) forwarded were not answered within " + DRAIN_WITHIN);
            }
        }
        return freeze;
    }

    /** A freeze under way; closing it (once, from any thread) lets the held writes go. */
    final class Freeze implements AutoCloseable {
        private final AtomicBoolean open = new AtomicBoolean(true);

        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                synchronized (monitor) {
                    frozen = false;
                    monitor.notifyAll();
                }
                freezer.release();
            }
        }
    }
}
