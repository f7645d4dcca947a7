package io.github.mongolock.core;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a waiter pauses between attempts on a lock held elsewhere: exponential from
 * {@code initial} to {@code max}, each pause drawn uniformly from its upper half so that waiters on
 * other machines spread out. A local release wakes waiters earlier.
 */
record RetryBackoff(Duration initial, Duration max, Duration maxWhilePushed) {

    /** An attempt number past the ramp: the pause is drawn from the full ceiling at once. */
    static final int FULL = 20;

    RetryBackoff(Duration initial, Duration max) {
        this(initial, max, max);
    }

    /**
     * 10 ms doubling to 500 ms; up to 2 s while a release feed is pushing, since a pushed notice
     * wakes the waiter anyway and the polls only cover notices that never come.
     */
    static RetryBackoff standard() {
        return new RetryBackoff(Duration.ofMillis(10), Duration.ofMillis(500), Duration.ofSeconds(2));
    }

    /**
     * @param attempt 0 for the pause after the first failed attempt
     * @param notAfter when known, the latest useful retry (e.g. when a takeover becomes due): no point sleeping past it
     */
    long pauseNanos(int attempt, Duration notAfter, boolean pushed) {
        long ceiling = initial.toNanos() << Math.min(attempt, FULL);
        ceiling = Math.min(ceiling, (pushed ? maxWhilePushed : max).toNanos());
        if (notAfter != null) {
            // Retry just after that moment: a small margin absorbs clock granularity.
            long until = Math.max(notAfter.toNanos(), 0) + Duration.ofMillis(2).toNanos();
            ceiling = Math.min(ceiling, until);
        }
        long floor = ceiling / 2;
        return floor + ThreadLocalRandom.current().nextLong(ceiling - floor + 1);
    }
}
