package io.github.mongolock.core;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Parks waiters per lock name until a release of that name wakes one of them (a holder of this
 * manager, or a pushed notice of a release elsewhere) or their backoff deadline passes. Waiters read a generation before each attempt, so a release that happens between
 * their attempt and their park is never missed. Entries exist only while somebody waits.
 */
final class ReleaseSignals {

    private final ConcurrentHashMap<String, Signal> signals = new ConcurrentHashMap<>();

    static final class Signal {
        private long generation;
        private int waiters;

        synchronized long generation() {
            return generation;
        }

        /** @return false when the park ended by timeout, true when woken by a release */
        synchronized boolean awaitChange(long seen, long nanos) throws InterruptedException {
            long deadline = System.nanoTime() + nanos;
            long remaining = nanos;
            while (generation == seen && remaining > 0) {
                TimeUnit.NANOSECONDS.timedWait(this, remaining);
                remaining = deadline - System.nanoTime();
            }
            return generation != seen;
        }

        /**
         * Wakes one parked waiter: only one can win the freed lock, and waking them all would send
         * every one to the store at once. A woken waiter that leaves without the lock passes the
         * wake-up on ({@link ReleaseSignals#released}); the others keep their backoff deadline.
         */
        synchronized void bumpOne() {
            generation++;
            notify();
        }

        synchronized void bumpAll() {
            generation++;
            notifyAll();
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

    /**
     * A holder of this manager handed {@code name} to one of its waiters: all of them look, the one it
     * was handed to takes it, the others find it held here and park again without a round trip.
     */
    void handedOver(String name) {
        Signal signal = signals.get(name);
        if (signal != null) {
            signal.bumpAll();
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
