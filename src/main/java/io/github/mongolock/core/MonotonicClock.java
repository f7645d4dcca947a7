package io.github.mongolock.core;

/**
 * The client's monotonic clock. It only measures local waits and how long a lease has gone
 * unconfirmed; it never decides who holds a lock (the store's clock does).
 */
@FunctionalInterface
public interface MonotonicClock {
    long nanoTime();

    static MonotonicClock system() {
        return System::nanoTime;
    }
}
