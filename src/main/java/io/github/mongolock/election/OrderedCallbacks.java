package io.github.mongolock.election;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Runs one election's listener callbacks in the order they were queued and never two at once, on the
 * threads that queue them, with no thread of its own: a thread that finds another delivering leaves its
 * callback to that thread, which runs it right after the current one. Callbacks are queued under the
 * candidate's state lock, so their order is the order of the state changes. Thread-safe.
 */
final class OrderedCallbacks {

    private static final System.Logger LOG = System.getLogger(OrderedCallbacks.class.getName());

    private final String election;
    /** Guarded by {@code this}. */
    private final ArrayDeque<Runnable> pending = new ArrayDeque<>();
    /** Guarded by {@code this}: the thread delivering now, or null. */
    private Thread deliverer;
    /** Guarded by {@code this}: callbacks queued and callbacks run (or failed) so far. */
    private long queued;
    private long delivered;

    OrderedCallbacks(String election) {
        this.election = election;
    }

    /** @return the callback's ticket, for {@link #deliverAndWait} */
    synchronized long add(Runnable callback) {
        pending.add(callback);
        return ++queued;
    }

    /** Delivers everything queued, unless another thread is at it (it then delivers this thread's callbacks too). */
    void deliver() {
        synchronized (this) {
            if (deliverer != null) {
                return;
            }
            deliverer = Thread.currentThread();
        }
        try {
            while (true) {
                Runnable next;
                synchronized (this) {
                    next = pending.poll();
                    if (next == null) {
                        deliverer = null;
                        notifyAll();
                        return;
                    }
                }
                try {
                    next.run();
                } catch (RuntimeException broken) {
                    LOG.log(Level.WARNING, "mongolock: a leadership listener of election \"" + election + "\" failed", broken);
                } finally {
                    synchronized (this) {
                        delivered++;
                        notifyAll();
                    }
                }
            }
        } finally {
            synchronized (this) {
                if (deliverer == Thread.currentThread()) {
                    deliverer = null; // an Error escaped: let the next caller deliver what is left
                    notifyAll();
                }
            }
        }
    }

    /**
     * Delivers, then waits until the callback with {@code ticket} has run, when another thread was
     * delivering an earlier callback: for a step-down or a leave, whose {@code revoked} must come before
     * the lock is released. Does not wait on the delivering thread itself (a listener stepping down
     * inside its own callback: its {@code revoked} comes when that callback returns), nor longer than
     * {@code maxWaitNanos}, so that a listener that never returns cannot hold the lock forever.
     *
     * @return whether the callback has run
     */
    boolean deliverAndWait(long ticket, long maxWaitNanos) {
        deliver();
        long deadline = System.nanoTime() + maxWaitNanos;
        synchronized (this) {
            while (delivered < ticket) {
                if (deliverer == Thread.currentThread()) {
                    return true; // inside a callback of this election: delivered as soon as it returns
                }
                if (deliverer == null) {
                    break; // nobody delivers (an Error ended the last one): deliver below
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            if (delivered >= ticket) {
                return true;
            }
        }
        deliver();
        synchronized (this) {
            return delivered >= ticket;
        }
    }
}
