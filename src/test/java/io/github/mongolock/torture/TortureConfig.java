package io.github.mongolock.torture;

import java.time.Duration;

/**
 * The size of a torture run: {@link #SHORT} runs in the normal build, {@link #LONG} on demand
 * ({@code -Dmongolock.torture=long}). Every scenario is bounded by {@code scenarioTime} and by
 * {@code maxSections}, whichever comes first; faults stop at {@code faultShare} of the time so the
 * run ends quiet. {@link Scenario#MANY_LOCKS}: each worker holds {@code locksPerWorker} locks at once
 * (the other scenarios share {@code locks} names), and the harness makes at most {@code manyLocksRounds}
 * rounds of a kill and a pause, then ends the scenario.
 */
record TortureConfig(String name, int workers, int threads, int locks, Duration lease, Duration waitTime,
                     Duration storeTimeout, Duration scenarioTime, int maxSections, double faultShare,
                     int workMinMicros, int workMaxMicros, int locksPerWorker, int manyLocksRounds) {

    static final TortureConfig SHORT = new TortureConfig("short", 4, 4, 2, Duration.ofMillis(1500),
            Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ofSeconds(14), 5_000, 0.75, 500, 3_000, 200, 1);

    static final TortureConfig LONG = new TortureConfig("long", 4, 4, 2, Duration.ofMillis(1500),
            Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ofSeconds(140), 16_667, 0.85, 200, 2_000, 300,
            Integer.MAX_VALUE);

    /** {@code -Dmongolock.torture=long} selects {@link #LONG}; anything else {@link #SHORT}. */
    static TortureConfig fromSystemProperty() {
        return "long".equalsIgnoreCase(System.getProperty("mongolock.torture", "short")) ? LONG : SHORT;
    }

    /** How often a waiter looks again at a lock held elsewhere while it watches the lease: a fifth of the lease. */
    Duration waiterPoll() {
        return lease.dividedBy(5);
    }

    /** How often a holder renews: a third of the lease. */
    Duration renewalInterval() {
        return lease.dividedBy(3);
    }
}
