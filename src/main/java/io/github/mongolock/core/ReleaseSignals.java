package io.github.mongolock.core;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Parks waiters per lock name until a holder of this manager releases that name or their backoff
 * deadline passes. Waiters read a generation before each attempt, so a release that happens between
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

        synchronized void bump() {
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
            signal.bump();
        }
    }

    /** Wakes every waiter, e.g. when the manager closes. */
    void releasedAll() {
        signals.values().forEach(Signal::bump);
    }

    int waitingNames() {
        return signals.size();
    }
}
