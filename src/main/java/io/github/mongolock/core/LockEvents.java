package io.github.mongolock.core;

import io.github.mongolock.LockEvent;
import io.github.mongolock.LockListener;
import io.github.mongolock.PermitEvent;
import io.github.mongolock.ReadWriteEvent;
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

    /** Whether anyone listens. */
    boolean hasListeners() {
        return !listeners.isEmpty();
    }

    /** A read-write lock's event, to the listeners' {@code onReadWriteEvent}, on the calling thread. */
    void fireReadWrite(ReadWriteEvent event) {
        for (LockListener listener : listeners) {
            try {
                listener.onReadWriteEvent(event);
            } catch (RuntimeException broken) {
                LOG.log(Level.WARNING, "mongolock lock listener " + listener + " failed on " + event, broken);
            }
        }
    }

    /** A semaphore's event, to the listeners' {@code onPermitEvent}, on the calling thread. */
    void firePermit(PermitEvent event) {
        for (LockListener listener : listeners) {
            try {
                listener.onPermitEvent(event);
            } catch (RuntimeException broken) {
                LOG.log(Level.WARNING, "mongolock lock listener " + listener + " failed on " + event, broken);
            }
        }
    }

    /**
     * A loss found in the background: the sessions' loss actions first (they stop work, so they must
     * not wait for a slow listener), then the listeners, on the notice thread.
     */
    synchronized void lossLater(HeldLock lock) {
        if (listeners.isEmpty() && !lock.hasLossActions()) {
            return;
        }
        if (lossNotices == null) {
            lossNotices = Executors.newSingleThreadExecutor(new DaemonThreads(threadName));
        }
        Runnable notice = () -> {
            runLossActions(lock);
            fire(LockEvent.Kind.LEASE_LOST, lock, 0);
        };
        try {
            lossNotices.execute(notice);
        } catch (RejectedExecutionException closing) {
            notice.run();
        }
    }

    /** Runs {@code notice} on the notice thread (loss actions of permits). */
    synchronized void later(Runnable notice) {
        if (lossNotices == null) {
            lossNotices = Executors.newSingleThreadExecutor(new DaemonThreads(threadName));
        }
        try {
            lossNotices.execute(notice);
        } catch (RejectedExecutionException closing) {
            notice.run();
        }
    }

    /** A loss the owner's own call found: loss actions and listeners on the caller's thread. */
    void lossNow(HeldLock lock) {
        runLossActions(lock);
        fire(LockEvent.Kind.LEASE_LOST, lock, 0);
    }

    private static void runLossActions(HeldLock lock) {
        for (Runnable action : lock.takeLossActions()) {
            runLossAction(action, lock.name);
        }
    }

    /** Runs one session's loss action; a failing one is logged and the others still run. */
    static void runLossAction(Runnable action, String name) {
        try {
            action.run();
        } catch (RuntimeException broken) {
            LOG.log(Level.WARNING, "mongolock: the lease-loss action " + action + " of lock " + LockArguments.quote(name) + " failed", broken);
        }
    }

    /** Notices already queued are still delivered. */
    synchronized void close() {
        if (lossNotices != null) {
            lossNotices.shutdown();
        }
    }
}
