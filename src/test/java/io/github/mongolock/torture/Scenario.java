package io.github.mongolock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The torture scenarios: one fault each, all of them together, two of the lock's own lifecycle
 * (managers closed under load, holds handed over between pooled threads), and the database's wall
 * clock stepped forward and back (a stand-in of its own, in its own JVM, whose reads of the wall clock
 * follow an offset the test sets: {@code testing.SteppedClockStandIn}), a leader election whose
 * leader is killed, paused and cut off, workers each holding a few hundred locks at once under one
 * session, paused and killed, and a replica set's weaker behaviours (stale reads after elections, lost
 * answers, rollbacks) injected by {@link io.github.mongolock.testing.ReplicaSetFaults}.
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
    LEADER("leader election under kill, pause and cut connections"),
    MANY_LOCKS("workers holding a few hundred locks each, paused and killed"),
    STALE_READS("stale reads after elections, lost answers and rollbacks (replica-set fault layer)"),
    PERMITS("permits of two semaphores (limits 2 and 3) under contention"),
    PERMITS_KILL("permit holders killed (kill -9)"),
    PERMITS_PAUSE("permit holders paused 2 x lease (SIGSTOP/SIGCONT)"),
    RW("read-write locks: readers and writers of two names"),
    RW_KILL("read-write holders killed (kill -9)"),
    RW_PAUSE("read-write holders paused 2 x lease (SIGSTOP/SIGCONT)");

    /**
     * The lock names of {@link #STALE_READS}: more than the others' two, so that names are often free and unqueued,
     * and the idle clean-up finds documents to remove (their re-creation then reads the token floor).
     */
    static final int STALE_READS_LOCKS = 6;
    /** {@link #STALE_READS} runs this much longer than the configuration's scenario time, for a few more rounds. */
    static final int STALE_READS_EXTRA_SECONDS = 20;

    /**
     * The fast path's stated assumption ({@code MongoLockStore.LONG_AGO}): the database's clock never
     * steps forward by this much. Every forward step of {@link #SERVER_CLOCK} stays well below it.
     */
    static final Duration FAST_PATH_STEP = Duration.ofMinutes(1);
    /** The largest forward step {@link #SERVER_CLOCK} makes, well below {@link #FAST_PATH_STEP}. */
    static final Duration MAX_FORWARD_STEP = Duration.ofSeconds(40);

    /** How long the steady {@link #PERMITS} scenario runs once its workers are ready, in the short run (the long: its whole window). */
    static final Duration PERMITS_STEADY = Duration.ofSeconds(4);

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
            // Permits: "granted again once its session is ended, within lease + 3 % + one poll of a waiter first seeing
            // it" (PERMITS-DESIGN.md), the lock's own rule, so the same bound.
            case KILL, PAUSE, SERVER_CLOCK, MANY_LOCKS, PERMITS_KILL, PERMITS_PAUSE, RW_KILL, RW_PAUSE -> config.lease().plus(config.renewalInterval()).plus(config.waiterPoll());
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
            // A hold of 0.1-0.4 s under a session the snapshot lacks is what a waiter's stale session read meets.
            case STALE_READS -> WorkerSettings.Workload.MEDIUM_HOLDS;
            case LEADER -> WorkerSettings.Workload.LEADER;
            case MANY_LOCKS -> WorkerSettings.Workload.MANY_HOLDS;
            case PERMITS, PERMITS_KILL, PERMITS_PAUSE -> WorkerSettings.Workload.PERMITS;
            case RW, RW_KILL, RW_PAUSE -> WorkerSettings.Workload.READ_WRITE;
            default -> WorkerSettings.Workload.LOOP;
        };
    }

    /** The threads of each worker: one per worker holds a whole batch of {@link #MANY_LOCKS}. */
    int threads(TortureConfig config) {
        return this == MANY_LOCKS ? 1 : config.threads();
    }

    /**
     * How long an acquire waits. In {@link #MANY_LOCKS} a worker waits for a neighbour's whole batch (whose
     * holder may itself be waiting for the next): twice the configuration's, so a waiter rarely times out
     * (it asks again at once when it does, its watch going on).
     */
    Duration waitTime(TortureConfig config) {
        return this == MANY_LOCKS ? config.waitTime().multipliedBy(2) : config.waitTime();
    }

    /** The section budget of the whole scenario: a {@link #MANY_LOCKS} worker runs a few hundred sections a round. */
    int maxSections(TortureConfig config) {
        return this == MANY_LOCKS ? config.maxSections() * 10 : config.maxSections();
    }

    /** A critical section's work, in microseconds: shorter where a worker finishes a few hundred one after the other. */
    int[] workMicros(TortureConfig config) {
        return this == MANY_LOCKS ? new int[] {100, 400} : new int[] {config.workMinMicros(), config.workMaxMicros()};
    }

    /**
     * The fewest locks a victim of a kill or pause must hold: in {@link #MANY_LOCKS} its whole batch (so every
     * fault meets a holder of a few hundred locks, each recorded and watched until granted again); elsewhere 1,
     * the lock the victim was picked for, the only one recorded.
     */
    int minLocksPerVictim(TortureConfig config) {
        return this == MANY_LOCKS ? config.locksPerWorker() : 1;
    }

    /**
     * How many kills or pauses a permits scenario makes before it ends: 2 in the short run (about 40 s for the three
     * scenarios), as many as its fault window holds in the long one.
     */
    static int permitFaultRounds(TortureConfig config) {
        return "long".equals(config.name()) ? Integer.MAX_VALUE : 2;
    }

    /** Whether the workers hold permits of semaphores ({@link PermitsWorkload}) rather than locks: judged by {@link PermitsChecker}. */
    boolean permits() {
        return this == PERMITS || this == PERMITS_KILL || this == PERMITS_PAUSE || readWrite();
    }

    /**
     * Whether the workers hold read-write locks ({@link ReadWriteWorkload}): a permits scenario too (the same faults
     * of holder entries, the same history records, a read 1 permit and a write all of them), judged by {@link ReadWriteChecker}.
     */
    boolean readWrite() {
        return this == RW || this == RW_KILL || this == RW_PAUSE;
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
     * This scenario's time: the configuration's, {@value #STALE_READS_EXTRA_SECONDS} s more for {@link #STALE_READS}, and half as much again for {@link #MIXED}, whose round of
     * an outage, a pause (2 leases each) and a kill with connection chaos between them would otherwise not
     * fit into the short run's fault window on a loaded machine. For {@link #MANY_LOCKS} a bound, 30 s more:
     * the harness ends the scenario once its rounds are done ({@code manyLocksRounds}), and each round, the
     * victims' few hundred locks granted again one by one, takes 3 to 12 s on this machine as its load goes.
     */
    Duration time(TortureConfig config) {
        return switch (this) {
            case MIXED -> config.scenarioTime().multipliedBy(3).dividedBy(2);
            // Each round waits for a killed holder's replacement to hold a lock long: 4-8 s a round.
            case STALE_READS -> config.scenarioTime().plusSeconds(STALE_READS_EXTRA_SECONDS);
            case MANY_LOCKS -> config.scenarioTime().plusSeconds(30);
            // The permits scenarios end once their faults are done (PERMITS_STEADY or permitFaultRounds, then the
            // harness's stop file): the configuration's time is only their bound, so JVMs slow to start on a loaded
            // machine (7 s once, at load 15) do not eat their window.
            default -> config.scenarioTime();
        };
    }

    /**
     * How long after a kill's or pause's SIGSTOP the harness watches for the victim's locks to be granted
     * again: 10 leases, and in {@link #MANY_LOCKS} 100 ms more per lock of the batch, as the partner takes
     * them one after the other once it has the gate (20-60 ms each on this machine, loaded; a long run's
     * first round, its JVMs cold, took 18 s for 300).
     */
    Duration recoveryTimeout(TortureConfig config) {
        Duration leases = config.lease().multipliedBy(10);
        return this == MANY_LOCKS ? leases.plusMillis(100L * config.locksPerWorker()) : leases;
    }

    /**
     * In {@link #MANY_LOCKS}, no round of faults starts later than this before the workers' deadline: its
     * victims' few hundred locks are all granted again only once the other workers have come to each of them,
     * and workers stop at the deadline. Two leases for the gate, and 100 ms per lock for the rest.
     */
    static Duration quietTail(TortureConfig config) {
        return config.lease().multipliedBy(2).plusMillis(100L * config.locksPerWorker());
    }

    /** Whether MongoDB calls fail on purpose (cut connections, outages, lost answers) in this scenario. */
    boolean hasNetworkFaults() {
        return this == CUT || this == OUTAGE || this == MIXED || this == LEADER || this == STALE_READS;
    }

    /**
     * The locks the workers use: the election's lock, or lock names: {@code locks} of them, {@link #STALE_READS_LOCKS}
     * in {@link #STALE_READS}, or in {@link #MANY_LOCKS} {@code locksPerWorker} for each pair of workers, the batch
     * both take whole (see {@link ManyLocksWorkload}).
     */
    List<String> lockNames(TortureConfig config) {
        if (this == LEADER) {
            return List.of(WorkerSettings.ELECTION);
        }
        if (permits()) {
            List<String> semaphores = new ArrayList<>();
            for (int i = 0; i < config.locks(); i++) {
                semaphores.add(readWrite() ? ReadWriteWorkload.name(i) : PermitsWorkload.name(i));
            }
            return semaphores;
        }
        int count = switch (this) {
            case MANY_LOCKS -> ManyLocksWorkload.pairs(config.workers()) * config.locksPerWorker();
            case STALE_READS -> STALE_READS_LOCKS;
            default -> config.locks();
        };
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            names.add(WorkerSettings.lockName(i));
        }
        return names;
    }

    /**
     * The locks a timeline draws, a panel each: all of them, but in {@link #MANY_LOCKS} the first (the gate) and
     * the last of each pair's batch: a victim's gate names its fault; its partner waits there for the victim's
     * lease, then takes the others without waiting.
     */
    List<String> drawnLocks(TortureConfig config) {
        if (this != MANY_LOCKS) {
            return lockNames(config);
        }
        List<String> drawn = new ArrayList<>();
        for (int pair = 0; pair < ManyLocksWorkload.pairs(config.workers()); pair++) {
            List<String> batch = ManyLocksWorkload.batch(2 * pair, config.workers(), lockNames(config).size());
            drawn.add(batch.get(0));
            drawn.add(batch.get(batch.size() - 1));
        }
        return drawn;
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
