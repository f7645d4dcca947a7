package io.github.mongolock.core;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Parks waiters per lock name until a release of that name wakes one of them (a holder of this
 * manager, or a pushed notice of a release elsewhere), the lock is handed over to them, or their backoff
 * deadline passes. Waiters read a generation before each attempt, so a release that happens between their
 * attempt and their park is never missed. A hand-over wakes only the caller it went to, through its
 * {@link LocalWaiters.Ticket}. Entries exist only while somebody waits.
 */
final class ReleaseSignals {

    private final ConcurrentHashMap<String, Signal> signals = new ConcurrentHashMap<>();

    static final class Signal {
        private long generation;
        private int waiters;
        /** Callers parked in {@link #awaitChange}, oldest first; created on the first park. Guarded by this. */
        private ArrayDeque<Thread> parked;

        synchronized long generation() {
            return generation;
        }

        /**
         * Parks until a release moves the generation past {@code seen}, the lock is handed to {@code ticket}'s (null:
         * nothing is handed over, as for permits)
         * caller ({@link LocalWaiters.Ticket#grant} wakes exactly that caller), or {@code nanos} pass.
         *
         * @return true when woken by a release, false otherwise (timeout, or the hand-over)
         */
        boolean awaitChange(long seen, long nanos, LocalWaiters.Ticket ticket) throws InterruptedException {
            Thread caller = Thread.currentThread();
            long deadline = System.nanoTime() + nanos;
            synchronized (this) {
                if (generation != seen) {
                    return true;
                }
                if (parked == null) {
                    parked = new ArrayDeque<>(2);
                }
                parked.addLast(caller);
            }
            try {
                while (ticket == null || !ticket.isGranted()) {
                    long remaining = deadline - System.nanoTime();
                    if (remaining <= 0) {
                        break;
                    }
                    LockSupport.parkNanos(this, remaining);
                    if (Thread.interrupted()) {
                        passOnIfPicked(caller);
                        throw new InterruptedException();
                    }
                    synchronized (this) {
                        if (generation != seen) {
                            return true;
                        }
                    }
                }
                synchronized (this) {
                    return generation != seen;
                }
            } finally {
                synchronized (this) {
                    parked.remove(caller); // already gone when a bump woke it
                }
            }
        }

        /**
         * {@code caller} leaves interrupted: if a bump had picked it, the wake-up it never reports goes to the
         * next parked caller, as Object.notify's is never lost to an interrupt.
         */
        private void passOnIfPicked(Thread caller) {
            Thread next = null;
            synchronized (this) {
                if (!parked.remove(caller)) {
                    next = parked.pollFirst();
                }
            }
            if (next != null) {
                LockSupport.unpark(next);
            }
        }

        /**
         * Wakes one parked waiter, the oldest: only one can win the freed lock, and waking them all would
         * send every one to the store at once. A woken waiter that leaves without the lock passes the
         * wake-up on ({@link ReleaseSignals#released}); the others keep their backoff deadline.
         */
        void bumpOne() {
            Thread next;
            synchronized (this) {
                generation++;
                next = parked == null ? null : parked.pollFirst();
            }
            if (next != null) {
                LockSupport.unpark(next);
            }
        }

        void bumpAll() {
            List<Thread> woken;
            synchronized (this) {
                generation++;
                if (parked == null || parked.isEmpty()) {
                    return;
                }
                woken = List.copyOf(parked);
                parked.clear();
            }
            woken.forEach(LockSupport::unpark);
        }
    }

    Signal join(String name) {
        return signals.compute(name, (key, signal) -> {
            Signal joined = signal == null ? new Signal() : signal;
            synchronized (joined) {
                joined.waiters++;
            }
            return joined;
        });
    }

    void leave(String name, Signal signal) {
        signals.computeIfPresent(name, (key, current) -> {
            synchronized (current) {
                return --current.waiters == 0 ? null : current;
            }
        });
    }

    void released(String name) {
        Signal signal = signals.get(name);
        if (signal != null) {
            signal.bumpOne();
        }
    }

    /** Wakes every waiter, e.g. when the manager closes. */
    void releasedAll() {
        signals.values().forEach(Signal::bumpAll);
    }

    int waitingNames() {
        return signals.size();
    }
}
