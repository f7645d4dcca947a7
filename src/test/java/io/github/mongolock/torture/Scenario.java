package io.github.mongolock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The torture scenarios: one fault each, all of them together, two of the lock's own lifecycle
 * (managers closed under load, holds handed over between pooled threads), and the database's wall
 * clock stepped forward and back (a stand-in of its own under libfaketime), and a leader election whose
 * leader is killed, paused and cut off.
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
    SERVER_CLOCK("database clock stepped forward and back"),
    LEADER("leader election under kill, pause and cut connections");

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
     * The recovery time the scenario must stay within, counted from the later of the SIGSTOP and the
     * first waiter's arrival (see {@link HistoryChecker}), or null where the issue sets none: lease +
     * renewal interval, plus one of the waiter's polls. The holder's last renewal came at most a
     * renewal interval before the SIGSTOP; a waiter sees that state within one poll and takes the lock
     * over once it has seen it unchanged for lease + 3 % (which the renewal interval covers).
     */
    Duration recoveryBound(TortureConfig config) {
        return switch (this) {
            case KILL, PAUSE, SERVER_CLOCK -> config.lease().plus(config.renewalInterval()).plus(config.waiterPoll());
            // A candidate first sees the dead leader's last renewal at one poll and takes over at the first poll
            // after lease + 3 % (which the renewal interval covers, as above): two polls, where a waiter in acquire
            // wakes when the takeover is due. One poll more: a candidate's polls run one after the other on its
            // elections' one thread, each interval counted from the end of the previous poll.
            case LEADER -> config.lease().plus(config.renewalInterval()).plus(config.waiterPoll().multipliedBy(3));
            default -> null;
        };
    }

    /** What the workers' threads do in this scenario. */
    WorkerSettings.Workload workload() {
        return switch (this) {
            case SHUTDOWN -> WorkerSettings.Workload.SHUTDOWN;
            case HANDOVER -> WorkerSettings.Workload.HANDOVER;
            case SERVER_CLOCK -> WorkerSettings.Workload.LONG_HOLDS;
            case LEADER -> WorkerSettings.Workload.LEADER;
            default -> WorkerSettings.Workload.LOOP;
        };
    }

    /** Whether this scenario needs a MongoDB of its own whose wall clock it steps (the stepped-clock stand-in). */
    boolean stepsServerClock() {
        return this == SERVER_CLOCK;
    }

    /** One step of the database's clock in {@link #SERVER_CLOCK}: the offset from the real time, and whether and when a holder is killed under it. */
    record ClockStep(Duration offset, Kill kill) {
        enum Kill {
            /** Nobody. */
            NONE,
            /** Once the database's clock is seen at the new offset: the whole kill runs under it. */
            AFTER_FOLLOWED,
            /** Right after the offset is written: the victim's last renewal was stamped by the clock before the step. */
            AT_STEP
        }
    }

    /**
     * The steps of {@link #SERVER_CLOCK}, in order, the fault loop cycling through them from the real
     * time (offset 0): 5 leases behind (a holder killed), 3 leases ahead (a forward step of 8 leases),
     * back to the real time, 30 s behind (a holder killed as the step is written), back to the real time
     * (a forward step of 30 s), 6 leases ahead, back to the real time. Every forward step, also from the
     * last offset to the first, stays at most 30 s, below {@link #MAX_FORWARD_STEP} and well below the
     * fast path's minute; {@code TortureTest} checks the steps actually made. The first step kills, so
     * that a short run whose workers were slow to start still has a kill under a stepped-back clock.
     */
    static List<ClockStep> clockSteps(Duration lease) {
        return List.of(new ClockStep(lease.multipliedBy(-5), ClockStep.Kill.AFTER_FOLLOWED),
                new ClockStep(lease.multipliedBy(3), ClockStep.Kill.NONE),
                new ClockStep(Duration.ZERO, ClockStep.Kill.NONE),
                new ClockStep(Duration.ofSeconds(-30), ClockStep.Kill.AT_STEP),
                new ClockStep(Duration.ZERO, ClockStep.Kill.NONE),
                new ClockStep(lease.multipliedBy(6), ClockStep.Kill.NONE),
                new ClockStep(Duration.ZERO, ClockStep.Kill.NONE));
    }

    /**
     * This scenario's time: the configuration's, and half as much again for {@link #MIXED}, whose round of
     * an outage, a pause (2 leases each) and a kill with connection chaos between them would otherwise not
     * fit into the short run's fault window on a loaded machine.
     */
    Duration time(TortureConfig config) {
        return this == MIXED ? config.scenarioTime().multipliedBy(3).dividedBy(2) : config.scenarioTime();
    }

    /** Whether MongoDB calls fail on purpose (cut connections, outages) in this scenario. */
    boolean hasNetworkFaults() {
        return this == CUT || this == OUTAGE || this == MIXED || this == LEADER;
    }

    /** The locks the workers use: the election's lock, or {@code locks} lock names. */
    List<String> lockNames(TortureConfig config) {
        if (this == LEADER) {
            return List.of(WorkerSettings.ELECTION);
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < config.locks(); i++) {
            names.add(WorkerSettings.lockName(i));
        }
        return names;
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
