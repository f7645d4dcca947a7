package io.github.mongolock.torture;

import com.mongodb.ConnectionString;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import io.github.mongolock.LockManager;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.testing.ReplicaSetFaults;
import io.github.mongolock.testing.ReplicaSnapshot;
import io.github.mongolock.testing.SteppedClockStandIn;
import io.github.mongolock.testing.TestMongo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.bson.Document;

/**
 * Runs one {@link Scenario}: a fresh database (on a stand-in of its own whose clock is stepped, for
 * {@link Scenario#SERVER_CLOCK}), a {@link TcpProxy} in front of MongoDB (for {@link Scenario#STALE_READS} the
 * replica-set fault layer, {@link ReplicaSetFaults}, driven by {@link StaleReadRounds}), a
 * {@link WorkerFleet}, the scenario's faults from this thread, then waits for the workers to stop
 * by themselves, lets leftover leases run out, and hands everything to {@link HistoryChecker}.
 * Workers are killed on every way out.
 */
final class ScenarioRun {

    /** Time allowed for the workers' JVMs to start, added to the scenario's time. */
    private static final Duration STARTUP = Duration.ofSeconds(3);

    private final Scenario scenario;
    private final TortureConfig config;
    private final TestMongo mongo;
    private final Path directory;

    ScenarioRun(Scenario scenario, TortureConfig config, TestMongo mongo, Path directory) {
        this.scenario = scenario;
        this.config = config;
        this.mongo = mongo;
        this.directory = directory;
    }

    /**
     * Runs the scenario against the shared MongoDB, or, where the scenario steps the database's clock,
     * against a stand-in of its own in its own JVM ({@link SteppedClockStandIn}), stopped afterwards.
     */
    ScenarioResult run() {
        if (!scenario.stepsServerClock()) {
            return runOn(mongo);
        }
        createDirectory();
        try (TestMongo steppable = TestMongo.startSteppedClock(directory.resolve("stand-in"))) {
            return runOn(steppable);
        }
    }

    private ScenarioResult runOn(TestMongo mongo) {
        long begin = System.nanoTime();
        String database = mongo.freshDatabase();
        MongoDatabase db = mongo.client().getDatabase(database);
        MongoCollection<Document> counters = db.getCollection(WorkerSettings.COUNTERS_COLLECTION);
        List<String> lockNames = scenario.lockNames(config);
        List<Document> fresh = new ArrayList<>();
        for (String name : lockNames) {
            fresh.add(new Document("_id", name).append("value", 0L).append("writes", 0L)
                    .append("plain", 0L).append("plainWrites", 0L).append(CriticalSection.FENCE, 0L));
        }
        counters.insertMany(fresh);
        createDirectory();
        ConnectionString target = new ConnectionString(mongo.uri());
        String[] hostPort = target.getHosts().get(0).split(":");
        long deadline = begin + STARTUP.toNanos() + scenario.time(config).toNanos();
        long faultWindow = (long) (scenario.time(config).toNanos() * config.faultShare());
        // The replica-set scenario's workers reach MongoDB through the fault layer, the others through the TCP proxy.
        boolean replicaSet = scenario == Scenario.STALE_READS;
        try (ReplicaSetFaults layer = replicaSet ? ReplicaSetFaults.start(mongo.uri()) : null;
             TcpProxy proxy = replicaSet ? null
                     : TcpProxy.start(hostPort[0], hostPort.length > 1 ? Integer.parseInt(hostPort[1]) : 27017)) {
            int port = replicaSet ? layer.port() : proxy.port();
            String proxied = "mongodb://127.0.0.1:" + port + "/?directConnection=true&heartbeatFrequencyMS=500";
            // Taken before any worker wrote: every session and lock is missing from it.
            ReplicaSnapshot beforeStart = replicaSet ? layer.snapshot(database, WorkerSettings.LOCKS_COLLECTION) : null;
            int[] work = scenario.workMicros(config);
            WorkerSettings template = new WorkerSettings(proxied, database, "", scenario.threads(config),
                    lockNames.size(), config.lease().toMillis(),
                    scenario.waitTime(config).toMillis(), config.storeTimeout().toMillis(),
                    Math.max(scenario.maxSections(config) / config.workers(), 1), deadline, directory, 0,
                    work[0], work[1], scenario.workload(), config.workers());
            try (WorkerFleet fleet = new WorkerFleet(directory, template, scenario.clockOffsets(config.workers(), begin))) {
                fleet.startAll();
                FaultInjector faults = new FaultInjector(db.getCollection(WorkerSettings.LOCKS_COLLECTION), lockNames,
                        fleet, proxy, scenario.recoveryTimeout(config), scenario.minLocksPerVictim(config),
                        scenario.ordinal() * 7919L + begin);
                if (!fleet.awaitReady(begin + STARTUP.multipliedBy(10).toNanos())) {
                    throw new IllegalStateException("the workers did not start within " + STARTUP.multipliedBy(10)
                            + "; see the .console files in " + directory);
                }
                // The fault window opens when the workers are ready: JVMs slow to start on a loaded machine
                // must not eat it (their deadline, fixed at launch, still ends the scenario).
                long faultsUntil = Math.min(System.nanoTime() + faultWindow, deadline - Duration.ofSeconds(1).toNanos());
                PermitFaults permitFaults = new PermitFaults(db.getCollection(WorkerSettings.LOCKS_COLLECTION), fleet,
                        scenario.recoveryTimeout(config), scenario.ordinal() * 7919L + begin);
                StaleReadRounds rounds = replicaSet ? new StaleReadRounds(layer, faults,
                        db.getCollection(WorkerSettings.LOCKS_COLLECTION), scenario.ordinal() * 7919L + begin) : null;
                if (replicaSet) {
                    rounds.run(beforeStart, faultsUntil);
                } else if (scenario.permits()) {
                    injectPermits(permitFaults, faultsUntil, deadline);
                } else {
                    inject(faults, faultsUntil, deadline, mongo);
                }
                long grace = config.waitTime().plus(config.lease().multipliedBy(3)).plus(Duration.ofSeconds(15)).toNanos();
                List<WorkerProcess> hung = fleet.awaitAll(deadline + grace);
                int heldAtEnd = locksHeldAtEnd(mongo, database);
                List<SectionRecord> sections = new ArrayList<>();
                List<AcquireFailure> failures = new ArrayList<>();
                List<AcquireFailure> toldBusy = new ArrayList<>(); // not failures: when permit calls were told busy
                List<LifecycleHistory> lifecycles = new ArrayList<>();
                List<LeaderHistory> elections = new ArrayList<>();
                List<PermitSection> permitSections = new ArrayList<>();
                for (WorkerProcess process : fleet.all()) {
                    HistoryReader.ProcessHistory history = HistoryReader.read(process.name(),
                            process.settings().history(), process.deathNanos());
                    if (!process.wasKilled() && history.openSections() > 0) {
                        throw new IllegalStateException(process.name() + " exited with " + history.openSections()
                                + " unfinished section(s); see " + process.settings().history());
                    }
                    sections.addAll(history.sections());
                    history.failures().forEach(failure -> (failure.toldBusy() ? toldBusy : failures).add(failure));
                    lifecycles.add(history.lifecycle());
                    elections.add(history.leader());
                    permitSections.addAll(history.permits());
                }
                writeFaultLog(faults.events(), replicaSet ? rounds.shown() : List.of(), permitFaults.faults());
                CheckReport report = HistoryChecker.check(sections, failures, faults.events(), counters(counters),
                        heldAtEnd, scenario.hasNetworkFaults(), LifecycleHistory.merge(lifecycles),
                        scenario == Scenario.LEADER ? Optional.of(LeaderHistory.merge(elections)) : Optional.empty());
                Set<String> killed = fleet.all().stream().filter(WorkerProcess::wasKilled).map(WorkerProcess::name)
                        .collect(Collectors.toSet());
                // A waiter counts for a regrant once told busy, while it waits or once it waited the bound (PermitsChecker).
                PermitsChecker.Arrivals arrivals = PermitsChecker.Arrivals.toldBusy(toldBusy,
                        Objects.requireNonNullElse(scenario.recoveryBound(config), Duration.ZERO));
                PermitsChecker.Report permits = !scenario.permits() ? PermitsChecker.Report.NONE
                        : scenario.readWrite() ? ReadWriteChecker.check(permitSections, failures, permitFaults.faults(),
                                semaphores(db.getCollection(WorkerSettings.LOCKS_COLLECTION)), killed,
                                arrivals)
                        : PermitsChecker.check(permitSections, failures, permitFaults.faults(),
                                semaphores(db.getCollection(WorkerSettings.LOCKS_COLLECTION)), killed, PermitsChecker.Waiters.ALL,
                                arrivals);
                ScenarioResult result = new ScenarioResult(scenario, report, Duration.ofNanos(System.nanoTime() - begin),
                        scenario.recoveryBound(config), faults.events(), faults.networkFaults(), hung.size(),
                        replicaSet ? rounds.figures() : StaleReadRounds.Figures.NONE, permits);
                if (scenario.permits()) {
                    return result; // no timeline of semaphores yet: a lock's picture would frame every shared hold as an overlap
                }
                List<NetworkFault> network = new ArrayList<>(faults.networkFaultEvents());
                if (replicaSet) {
                    network.addAll(rounds.shown());
                }
                List<String> processes = fleet.all().stream().map(WorkerProcess::name).toList();
                List<String> drawn = scenario.drawnLocks(config);
                String title = "Torture timeline: " + scenario.title() + " (" + scenario.name() + ", " + config.name() + " run"
                        + (drawn.size() < lockNames.size() ? "; " + drawn.size() + " of its " + lockNames.size() + " locks drawn" : "")
                        + ")";
                List<SectionRecord> drawnSections = drawn.size() < lockNames.size()
                        ? sections.stream().filter(section -> drawn.contains(section.lock())).toList() : sections;
                TimelineWriter.writeAndReport(directory, scenario == Scenario.LEADER
                        ? Timeline.ofElection(title, begin, processes, WorkerSettings.ELECTION, LeaderHistory.merge(elections),
                                faults.events(), network, TimelineWriter.verdict(result))
                        : Timeline.ofSections(title, begin, processes, drawn, drawnSections, faults.events(),
                                network, LifecycleHistory.merge(lifecycles).closes(),
                                TimelineWriter.verdict(result)));
                return result;
            }
        }
    }

    /**
     * @param until    faults start no later than this
     * @param deadline when the workers stop starting sections: a pause or an outage must end (with a
     *                 second to spare) before it, or nobody is left to take the lock after it
     * @param mongo    the MongoDB of this run (its clock is stepped in {@link Scenario#SERVER_CLOCK})
     */
    private void inject(FaultInjector faults, long until, long deadline, TestMongo mongo) {
        Duration pause = config.lease().multipliedBy(2);
        Duration outage = config.lease().multipliedBy(2);
        Duration maxStall = config.lease().multipliedBy(3).dividedBy(2);
        Duration gap = Duration.ofMillis(1500);
        switch (scenario) {
            case KILL -> {
                while (before(until)) {
                    faults.killHolder();
                    FaultInjector.sleepUntil(System.nanoTime() + gap.toNanos());
                }
            }
            case PAUSE -> {
                while (before(until)) {
                    faults.pauseHolder(pause);
                    FaultInjector.sleepUntil(System.nanoTime() + gap.toNanos());
                }
            }
            case CUT -> faults.cutConnections(until, maxStall);
            case OUTAGE -> {
                while (before(until - outage.toNanos())) {
                    FaultInjector.sleepUntil(System.nanoTime() + gap.toNanos());
                    faults.outage(outage);
                    FaultInjector.sleepUntil(System.nanoTime() + gap.toNanos());
                }
            }
            // No harness faults: the workers close their own managers, or hand holds over between threads.
            case SKEW, SHUTDOWN, HANDOVER -> FaultInjector.sleepUntil(until);
            case MANY_LOCKS -> {
                // In each round a kill and a pause at the same time, each of a worker holding its pair's whole
                // batch (two pairs hold one each); the harness watches every one of the victims' locks until
                // granted again before the next round. No round starts within the quiet tail before the deadline,
                // so the other workers are still running to take them all. No gap: waiting for a few hundred
                // grants is settling enough, and the worker that took them all is then holding them, a victim.
                // Once the rounds are done, the workers run on quietly for a lease, then are told to stop.
                long last = Math.min(until, deadline - Scenario.quietTail(config).toNanos());
                for (int round = 0; round < config.manyLocksRounds() && before(last); round++) {
                    Thread kill = new Thread(faults::killHolder, "torture-kill");
                    kill.start();
                    faults.pauseHolder(pause);
                    try {
                        kill.join();
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("fault injection interrupted", interrupted);
                    }
                }
                FaultInjector.sleepUntil(System.nanoTime() + config.lease().toNanos());
                ManyLocksWorkload.requestStop(directory);
            }
            case SERVER_CLOCK -> stepServerClock(faults, until, mongo.steppedClock().orElseThrow(
                    () -> new IllegalStateException("the clock scenario needs the stepped-clock stand-in")));
            case LEADER -> {
                // Each kill and pause meets a leader seen renewing in office (not one elected a moment ago while
                // the JVMs were still starting), and comes after a calm spell in which every stall ended, so its
                // failover is judged against the bound. The connections cut and stalled (up to a lease) between
                // them can cost a running leader its lease.
                Duration stall = config.lease();
                Duration calm = stall.plusMillis(500);
                Duration inOffice = config.renewalInterval();
                long waitForOffice = config.lease().multipliedBy(3).toNanos();
                long spare = Duration.ofSeconds(1).toNanos();
                while (before(until)) {
                    faults.awaitSteadyHolder(inOffice, System.nanoTime() + waitForOffice);
                    faults.killHolder();
                    if (before(until)) {
                        faults.cutConnections(System.nanoTime() + gap.toNanos(), stall);
                        FaultInjector.sleepUntil(System.nanoTime() + calm.toNanos());
                    }
                    long lastPause = deadline - pause.toNanos() - spare;
                    if (before(lastPause)) {
                        faults.awaitSteadyHolder(inOffice, Math.min(lastPause, System.nanoTime() + waitForOffice));
                    }
                    if (before(lastPause)) {
                        faults.pauseHolder(pause);
                        FaultInjector.sleepUntil(System.nanoTime() + gap.toNanos());
                    }
                }
            }
            case MIXED -> {
                // Connection chaos between the faults, in shorter phases than the gap. The faults that must
                // end before the workers' deadline (an outage, then a pause: nobody would be left to take a
                // lock after them) come first in each round and the kill, which fits anywhere, last: on a
                // loaded machine the kill-first order fitted only two of the three into the short run's window.
                Duration chaos = gap.dividedBy(2);
                long spare = Duration.ofSeconds(1).toNanos();
                while (before(until)) {
                    faults.cutConnections(System.nanoTime() + chaos.toNanos(), maxStall);
                    if (before(deadline - outage.toNanos() - spare)) {
                        faults.outage(outage);
                    }
                    faults.cutConnections(System.nanoTime() + chaos.toNanos(), maxStall);
                    if (before(deadline - pause.toNanos() - spare)) {
                        faults.pauseHolder(pause);
                    }
                    faults.cutConnections(System.nanoTime() + chaos.toNanos(), maxStall);
                    if (before(until)) {
                        faults.killHolder();
                    }
                }
            }
        }
    }

    /**
     * The permits scenarios: steady contention ({@link Scenario#PERMITS_STEADY} in the short run), or
     * {@link Scenario#permitFaultRounds} kills or pauses of holders of permits one after the other with the usual gap
     * between them; a pause starts only if it ends a second before the workers' deadline, a kill only if its regrant
     * fits before it (nobody would be left to take the victim's permits). Then the workers are told to stop.
     */
    private void injectPermits(PermitFaults faults, long until, long deadline) {
        Duration pause = config.lease().multipliedBy(2);
        Duration gap = Duration.ofMillis(1500);
        int rounds = Scenario.permitFaultRounds(config);
        switch (scenario) {
            case PERMITS_KILL, RW_KILL -> {
                // The victim's permits come back only to waiters: a kill must leave the workers time to take them
                // (the regrant bound and a second) before their deadline. A first run on a loaded machine killed
                // 1.2 s before it, and the permits were "never granted again" because nobody was left to ask.
                long lastKill = Math.min(until, deadline - scenario.recoveryBound(config).plusSeconds(1).toNanos());
                for (int round = 0; round < rounds && before(lastKill); round++) {
                    if (round > 0) {
                        FaultInjector.sleepUntil(System.nanoTime() + gap.toNanos());
                    }
                    faults.killHolder(); // returns once the victim's permits were taken back, or its timeout passed
                }
            }
            case PERMITS_PAUSE, RW_PAUSE -> {
                long lastPause = Math.min(until, deadline - pause.toNanos() - Duration.ofSeconds(1).toNanos());
                for (int round = 0; round < rounds && before(lastPause); round++) {
                    if (round > 0) {
                        FaultInjector.sleepUntil(System.nanoTime() + gap.toNanos());
                    }
                    faults.pauseHolder(pause);
                }
            }
            default -> FaultInjector.sleepUntil(rounds == Integer.MAX_VALUE ? until
                    : Math.min(until, System.nanoTime() + Scenario.PERMITS_STEADY.toNanos()));
        }
        // A quiet second (the resumed or replacement workers run on), then the workers are told to stop.
        FaultInjector.sleepUntil(System.nanoTime() + Duration.ofSeconds(1).toNanos());
        ManyLocksWorkload.requestStop(directory);
    }

    /** The semaphore documents as they are now: limit, used, the sum of their holders' permits, the holders' owners. */
    private static List<PermitsChecker.SemaphoreState> semaphores(MongoCollection<Document> locks) {
        List<PermitsChecker.SemaphoreState> states = new ArrayList<>();
        for (Document semaphore : locks.find(Filters.exists("holders"))) {
            List<Document> holders = semaphore.getList("holders", Document.class, List.of());
            states.add(new PermitsChecker.SemaphoreState(((Document) semaphore.get("_id")).getString("name"),
                    ((Number) semaphore.get("limit")).intValue(), ((Number) semaphore.get("used")).intValue(),
                    holders.stream().mapToInt(h -> ((Number) h.get("permits")).intValue()).sum(),
                    holders.stream().map(h -> h.getString("owner")).toList()));
        }
        return states;
    }

    /**
     * Cycles the database's clock through {@link Scenario#clockSteps}, each offset in force for at
     * least a lease, and watched until the database's {@code $$NOW} shows it. A forward step first waits (up to 2 leases) for a lock held under one lease for a
     * renewal interval, a long hold, so that it meets a live holder. At the steps behind the real time a
     * holder is killed: once the clock is seen there (the whole kill runs under it), or right after the
     * database confirmed the step (the victim's last renewal was stamped by the clock before the step, and its dead
     * lease and the takeover run as the clock steps back: the earlier protocol, which compared
     * {@code renewedAt + lease} with {@code $$NOW}, kept such a lock blocked for the step's length on top
     * of the lease). Ends with the clock back at the real time.
     */
    private void stepServerClock(FaultInjector faults, long until, SteppedClockStandIn clock) {
        List<Scenario.ClockStep> steps = Scenario.clockSteps(config.lease());
        // Each offset holds for at least a lease: every live holder renews about 3 times under it.
        long dwell = config.lease().toNanos();
        Duration current = Duration.ZERO;
        try {
            for (int i = 0; before(until); i++) {
                Scenario.ClockStep step = steps.get(i % steps.size());
                if (step.offset().compareTo(current) > 0) {
                    // A forward step is what could hand a live holder's lock to another: aim it at one.
                    faults.awaitSteadyHolder(config.renewalInterval(), Math.min(until, System.nanoTime()
                            + config.lease().multipliedBy(2).toNanos()));
                }
                current = step.offset();
                long written = System.nanoTime();
                faults.stepServerClock(clock, current);
                switch (step.kill()) {
                    case AFTER_FOLLOWED -> {
                        faults.awaitClockFollows(written + dwell);
                        faults.killHolder();
                    }
                    // Its follow is not watched (the kill takes the time): it counts as in force from the database's confirmation.
                    case AT_STEP -> faults.killHolder();
                    case NONE -> faults.awaitClockFollows(written + dwell);
                }
                FaultInjector.sleepUntil(written + dwell);
            }
        } finally {
            if (!current.isZero()) {
                long written = System.nanoTime();
                faults.stepServerClock(clock, Duration.ZERO);
                faults.awaitClockFollows(written + dwell);
            }
            faults.endClockSteps();
        }
    }

    private static boolean before(long nanos) {
        return nanos - System.nanoTime() > 0;
    }

    /** Waits up to a lease and a renewal interval for leftovers of killed or paused holders, then counts what is still held. */
    private int locksHeldAtEnd(TestMongo mongo, String database) {
        try (MongoLockManager inspector = MongoLockManager.builder().client(mongo.client())
                .database(database).collection(WorkerSettings.LOCKS_COLLECTION).build()) {
            long giveUp = System.nanoTime() + config.lease().plus(config.renewalInterval()).toNanos();
            int held;
            do {
                held = countHeld(inspector);
                if (held > 0) {
                    FaultInjector.sleepUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100));
                }
            } while (held > 0 && giveUp - System.nanoTime() > 0);
            return held;
        }
    }

    private int countHeld(LockManager inspector) {
        int held = 0;
        for (String name : scenario.lockNames(config)) {
            if (inspector.inspect(name).isPresent()) {
                held++;
            }
        }
        return held;
    }

    private List<CounterState> counters(MongoCollection<Document> counters) {
        List<CounterState> states = new ArrayList<>();
        for (Document counter : counters.find()) {
            states.add(new CounterState(counter.getString("_id"), counter.getLong("value"), counter.getLong("writes"),
                    counter.getLong("plain"), counter.getLong("plainWrites"), counter.getLong(CriticalSection.FENCE)));
        }
        return states;
    }

    /**
     * One line per fault, and one more per further lock its victim held (with that lock's token and grant); then the
     * replica-set layer's stale windows, lost answers and rollbacks, if any; then the kills and pauses of holders of permits.
     */
    private void writeFaultLog(List<FaultEvent> events, List<NetworkFault> replicaSetFaults, List<PermitFault> permitFaults) {
        try {
            Files.write(directory.resolve("faults.log"), Stream.concat(Stream.concat(events.stream()
                    .flatMap(event -> Stream.concat(Stream.of(event.toString()),
                            event.alsoHeld().stream().map(held -> "  also held: " + held))),
                    replicaSetFaults.stream().map(NetworkFault::toString)),
                    permitFaults.stream().map(PermitFault::toString)).toList());
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot write the fault log", failed);
        }
    }

    private void createDirectory() {
        try {
            Files.createDirectories(directory);
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot create " + directory, failed);
        }
    }
}
