package io.github.mongolock.core;

import io.github.mongolock.LockEvent;
import io.github.mongolock.LockListener;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * Tells a coordinator's listeners what happened to its locks. Events of a caller's own call are
 * delivered on the caller's thread; losses found in the background go through one notice thread
 * (created on first use), so a slow listener never holds up the renewals. A failing listener is
 * logged and skipped. Thread-safe.
 */
final class LockEvents {

    private static final System.Logger LOG = System.getLogger(LockEvents.class.getName());

    private final List<LockListener> listeners;
    private final String threadName;
    /** Guarded by {@code this}. */
    private ExecutorService lossNotices;

    LockEvents(List<LockListener> listeners, String threadName) {
        this.listeners = List.copyOf(listeners);
        this.threadName = threadName;
    }

    void fire(LockEvent.Kind kind, HeldLock lock, int holdCount) {
        if (listeners.isEmpty()) {
            return;
        }
        LockEvent event = new LockEvent(kind, lock.name, lock.fencingToken, lock.owner, holdCount);
        for (LockListener listener : listeners) {
            try {
                listener.onEvent(event);
            } catch (RuntimeException broken) {
                LOG.log(Level.WARNING, "mongolock lock listener " + listener + " failed on " + event, broken);
            }
        }
    }

    synchronized void lossLater(HeldLock lock) {
        if (listeners.isEmpty()) {
            return;
        }
        if (lossNotices == null) {
            lossNotices = Executors.newSingleThreadExecutor(new DaemonThreads(threadName));
        }
        try {
            lossNotices.execute(() -> fire(LockEvent.Kind.LEASE_LOST, lock, 0));
        } catch (RejectedExecutionException closing) {
            fire(LockEvent.Kind.LEASE_LOST, lock, 0);
        }
    }

    /** Notices already queued are still delivered. */
    synchronized void close() {
        if (lossNotices != null) {
            lossNotices.shutdown();
        }
    }
}
