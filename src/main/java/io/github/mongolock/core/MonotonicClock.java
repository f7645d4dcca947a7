package io.github.mongolock.core;

/**
 * The client's monotonic clock: it measures local waits, how long a lease has gone unconfirmed (the
 * holder's side) and how long a lock stayed unchanged (the waiter's side, {@link LeaseWatch}). Only
 * its rate matters, never its value: offsets between machines, even a wrap-around, are harmless.
 */
@FunctionalInterface
public interface MonotonicClock {
    long nanoTime();

    static MonotonicClock system() {
        return System::nanoTime;
    }
}
