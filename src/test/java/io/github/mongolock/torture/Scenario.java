package io.github.mongolock.torture;

import java.time.Duration;

/**
 * The torture scenarios: one fault each, all of them together, and two of the lock's own lifecycle
 * (managers closed under load, holds handed over between pooled threads).
 */
enum Scenario {
    KILL("holder killed (kill -9)"),
    PAUSE("holder paused 2 x lease (SIGSTOP/SIGCONT)"),
    CUT("connections cut and stalled"),
    OUTAGE("MongoDB unavailable"),
    SKEW("client clocks skewed"),
    MIXED("all faults together"),
    SHUTDOWN("managers closed and rebuilt under load"),
    HANDOVER("holds handed over across a small thread pool");

    private final String title;

    Scenario(String title) {
        this.title = title;
    }

    String title() {
        return title;
    }

    /**
     * The recovery time the scenario must stay within, or null where the issue sets none. A killed
     * or paused holder's lease ends at most one lease after its last renewal; the next holder must
     * have it within lease + one renewal interval of the SIGSTOP.
     */
    Duration recoveryBound(TortureConfig config) {
        return switch (this) {
            case KILL, PAUSE -> config.lease().plus(config.renewalInterval());
            default -> null;
        };
    }

    /** What the workers' threads do in this scenario. */
    WorkerSettings.Workload workload() {
        return switch (this) {
            case SHUTDOWN -> WorkerSettings.Workload.SHUTDOWN;
            case HANDOVER -> WorkerSettings.Workload.HANDOVER;
            default -> WorkerSettings.Workload.LOOP;
        };
    }

    /** Whether MongoDB calls fail on purpose (cut connections, outages) in this scenario. */
    boolean hasNetworkFaults() {
        return this == CUT || this == OUTAGE || this == MIXED;
    }

    /** Worker slot 0 runs its lock manager on a clock about to wrap around; slot 1 on one 146 years behind. */
    long[] clockOffsets(int workers, long now) {
        long[] offsets = new long[workers];
        if (this == SKEW || this == MIXED) {
            offsets[0] = Long.MAX_VALUE - now - Duration.ofSeconds(4).toNanos();
            if (this == SKEW && workers > 1) {
                offsets[1] = Long.MIN_VALUE / 2;
            }
        }
        return offsets;
    }
}
