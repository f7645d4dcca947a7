package io.github.mongolock.torture;

import java.time.Duration;
import java.util.List;

/**
 * The torture scenarios: one fault each, all of them together, two of the lock's own lifecycle
 * (managers closed under load, holds handed over between pooled threads), and the database's wall
 * clock stepped forward and back (a stand-in of its own under libfaketime).
 */
enum Scenario {
    KILL("holder killed (kill -9)"),
    PAUSE("holder paused 2 x lease (SIGSTOP/SIGCONT)"),
    CUT("connections cut and stalled"),
    OUTAGE("MongoDB unavailable"),
    SKEW("client clocks skewed"),
    MIXED("all faults together"),
    SHUTDOWN("managers closed and rebuilt under load"),
    HANDOVER("holds handed over across a small thread pool"),
    SERVER_CLOCK("database clock stepped forward and back");

    /**
     * The fast path's stated assumption ({@code MongoLockStore.LONG_AGO}): the database's clock never
     * steps forward by this much. Every forward step of {@link #SERVER_CLOCK} stays well below it.
     */
    static final Duration FAST_PATH_STEP = Duration.ofMinutes(1);
    /** The largest forward step {@link #SERVER_CLOCK} makes, well below {@link #FAST_PATH_STEP}. */
    static final Duration MAX_FORWARD_STEP = Duration.ofSeconds(40);

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
            case KILL, PAUSE, SERVER_CLOCK -> config.lease().plus(config.renewalInterval());
            default -> null;
        };
    }

    /** What the workers' threads do in this scenario. */
    WorkerSettings.Workload workload() {
        return switch (this) {
            case SHUTDOWN -> WorkerSettings.Workload.SHUTDOWN;
            case HANDOVER -> WorkerSettings.Workload.HANDOVER;
            case SERVER_CLOCK -> WorkerSettings.Workload.LONG_HOLDS;
            default -> WorkerSettings.Workload.LOOP;
        };
    }

    /** Whether this scenario needs a MongoDB of its own whose wall clock it steps (the stepped-clock stand-in). */
    boolean stepsServerClock() {
        return this == SERVER_CLOCK;
    }

    /**
     * The database clock's offsets from the real time, in the order {@link #SERVER_CLOCK} sets them, the
     * fault loop cycling through them from the real time (offset 0): 3 leases ahead, back to the real
     * time, 5 leases behind (a holder is killed there), 6 leases ahead (a forward step of 11 leases),
     * 30 s behind (a holder is killed there), back to the real time (a forward step of 30 s). Every
     * forward step, also from the last offset back to the first, stays at most {@link #MAX_FORWARD_STEP},
     * well below the fast path's minute; {@code TortureTest} checks the steps actually made.
     */
    static List<Duration> clockOffsets(Duration lease) {
        return List.of(lease.multipliedBy(3), Duration.ZERO, lease.multipliedBy(-5), lease.multipliedBy(6),
                Duration.ofSeconds(-30), Duration.ZERO);
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
