package io.github.mongolock;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;

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

    OrderedCallbacks(String election) {
        this.election = election;
    }

    synchronized void add(Runnable callback) {
        pending.add(callback);
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
                        return;
                    }
                }
                try {
                    next.run();
                } catch (RuntimeException broken) {
                    LOG.log(Level.WARNING, "mongolock: a leadership listener of election \"" + election + "\" failed", broken);
                }
            }
        } finally {
            synchronized (this) {
                if (deliverer == Thread.currentThread()) {
                    deliverer = null; // an Error escaped: let the next caller deliver what is left
                }
            }
        }
    }
}
