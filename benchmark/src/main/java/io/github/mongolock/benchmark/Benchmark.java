package io.github.mongolock.benchmark;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs every case in one invocation against one MongoDB, prints markdown tables of ratios
 * measured side by side and writes charts of the measured samples as SVG next to them
 * ({@code charts=DIR}, default {@code target/charts}; see docs/benchmark.md). MongoDB: {@code MONGOLOCK_BENCH_URI} when set,
 * else the stand-in in a JVM of its own. Options are {@code key=value} arguments, e.g.
 * {@code rounds=9 ops=300 handoffs=40 renewal-locks=10000 cases=single,handoff,contended,renewal,fair,hotjvm,readheavy}.
 */
public final class Benchmark {

    private final Map<String, String> options;
    private final Report report = new Report();
    private final BenchmarkCharts charts = new BenchmarkCharts();
    private final List<ChildJvm> children = new ArrayList<>();
    /** The builds the probes of cases 6 and 8 run: an earlier one first when {@code before-jar} is given, then the one under test. */
    private final List<LibraryBuild> builds = new ArrayList<>();
    /** A client of the stand-in for housekeeping between blocks; null with MONGOLOCK_BENCH_URI. */
    private MongoClient standInAdmin;

    /**
     * {@code quick}: short rounds of every case, to see a change work end to end (tables and charts;
     * 65 s here with {@code cases=single,handoff,contended,fair}); figures from it are too few to
     * compare. Options given explicitly still win.
     */
    private static final Map<String, String> QUICK = Map.ofEntries(Map.entry("rounds", "1"), Map.entry("warmup", "1"),
            Map.entry("ops", "30"), Map.entry("handoffs", "8"), Map.entry("contend-ms", "500"),
            Map.entry("contend-rounds", "1"), Map.entry("renewal-locks", "300"), Map.entry("renewal-lease-ms", "6000"),
            Map.entry("fair-ms", "2000"), Map.entry("fair-solo-ms", "1000"), Map.entry("quick-ms", "2000"),
            Map.entry("crash-locks", "300"), Map.entry("crash-lease-ms", "3000"), Map.entry("crash-waits-budget-ms", "20000"),
            Map.entry("hotjvm-ms", "2000"), Map.entry("readheavy-ms", "1000"), Map.entry("readheavy-rounds", "1"));

    private Benchmark(Map<String, String> options) {
        this.options = options;
        if (Boolean.parseBoolean(options.getOrDefault("quick", "false"))) {
            QUICK.forEach(options::putIfAbsent);
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (String arg : args) {
            for (String token : arg.trim().split("\\s+")) {
                if (!token.isEmpty()) {
                    String[] pair = token.split("=", 2);
                    options.put(pair[0], pair.length == 2 ? pair[1] : "true");
                }
            }
        }
        int status = 0;
        try {
            new Benchmark(options).run();
        } catch (Exception failed) {
            failed.printStackTrace();
            status = 1;
        }
        System.exit(status); // the shutdown hook kills any child still alive
    }

    private int intOption(String key, int fallback) {
        return Integer.parseInt(options.getOrDefault(key, String.valueOf(fallback)));
    }

    private boolean enabled(String section) {
        String cases = options.getOrDefault("cases", "single,handoff,contended,renewal,fair,hotjvm,readheavy");
        return List.of(cases.split(",")).contains(section);
    }

    private void run() throws Exception {
        String external = System.getenv("MONGOLOCK_BENCH_URI");
        boolean standIn = external == null || external.isBlank();
        String database = "mongolock_bench_" + Long.toHexString(System.currentTimeMillis());
        Instant started = Instant.now();
        String startLoad = loadAverage();
        report.line("Run " + started + " on " + machine() + ".");
        Path underTest = libraryJar();
        if (options.containsKey("before-jar")) {
            builds.add(LibraryBuild.earlier(options.getOrDefault("before-label", "before"), Path.of(options.get("before-jar"))));
            report.line("Earlier build (cases 6 and 8 only, `" + builds.get(0).label() + "`): " + builds.get(0).description() + ".");
        }
        builds.add(LibraryBuild.underTest(underTest));
        report.line("mongolock under test: " + LibraryBuild.describe(underTest) + ".");
        report.line("MongoDB: " + (standIn
                ? "stand-in de.bwaldvogel:mongo-java-server 1.47.0 (memory backend, oplog on) in its own JVM on"
                + " 127.0.0.1; its oplog is emptied before each two-process block (see docs/benchmark.md)"
                : "MONGOLOCK_BENCH_URI") + ".");
        System.out.println("mongolock benchmark: " + (standIn ? "stand-in" : "MONGOLOCK_BENCH_URI")
                + ", database " + database);
        ChildJvm server = standIn ? ChildJvm.start("stand-in", List.of("-Xms512m", "-Xmx2g"), StandInServer.class) : null;
        String uri = standIn ? "mongodb://127.0.0.1:" + server.expect(Protocol.PORT, Duration.ofSeconds(60)) : external;
        if (standIn) {
            standInAdmin = MongoClients.create(uri);
        }
        try {
            if (enabled("single")) {
                section(() -> singleClient(uri, database));
            }
            if (enabled("handoff")) {
                section(() -> {
                    if (options.containsKey("proxy")) {
                        handoffThroughProxy(uri, database, standIn);
                    } else {
                        twoProcesses(uri, database, true);
                    }
                });
            }
            if (enabled("contended")) {
                section(() -> twoProcesses(uri, database, false));
            }
            if (enabled("renewal")) {
                section(() -> renewal(uri, database, standIn));
            }
            if (enabled("fair")) {
                section(() -> fairness(uri, database));
            }
            if (enabled("hotjvm")) {
                section(() -> hotLockInOneJvm(uri, database, standIn));
            }
            if (enabled("readheavy")) {
                section(() -> readHeavy(uri, database));
            }
            if (enabled("crash")) {
                section(() -> crash(uri, database, standIn));
            }
        } finally {
            try (MongoClient cleanup = MongoClients.create(uri)) {
                cleanup.getDatabase(database).drop();
            } catch (RuntimeException ignored) {
                // best effort: the stand-in goes away anyway
            }
            if (standInAdmin != null) {
                standInAdmin.close();
            }
            if (server != null) {
                server.close();
            }
        }
        report.line("");
        report.line("Load average at the end: " + loadAverage() + ".");
        String markdown = report.render();
        System.out.println();
        System.out.println(markdown);
        try {
            Path file = Path.of("target", "benchmark-results.md");
            Files.createDirectories(file.getParent());
            Files.writeString(file, markdown);
            System.out.println("(also written to " + file.toAbsolutePath() + ")");
        } catch (IOException notWritten) {
            System.out.println("(could not write target/benchmark-results.md: " + notWritten.getMessage() + ")");
        }
        Path chartDirectory = Path.of(options.getOrDefault("charts", "target/charts"));
        String run = "Run " + DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'").withZone(ZoneOffset.UTC).format(started)
                + "; MongoDB: " + (standIn ? "the stand-in in its own JVM" : "MONGOLOCK_BENCH_URI") + "; "
                + Runtime.getRuntime().availableProcessors() + " CPUs shared with other jobs, load average "
                + startLoad.split(" ")[0] + " at the start.";
        for (Path chart : charts.write(chartDirectory, run)) {
            System.out.println("(chart written to " + chart.toAbsolutePath().normalize() + ")");
        }
    }

    interface Section {
        void run() throws Exception;
    }

    /** Runs one section; whatever JVM it forked is ended afterwards, workers and probes alike. */
    private void section(Section section) throws Exception {
        try {
            section.run();
        } finally {
            for (int i = children.size() - 1; i >= 0; i--) {
                children.remove(i).close();
            }
        }
    }

    /**
     * Stand-in only, called while no change stream is open: empties its oplog. The stand-in's
     * change-stream getMore scans the whole oplog (about 20 ms per getMore with 20,000 entries on
     * this machine, 2-3 ms when empty) where real MongoDB reads on from the stream's position, so
     * without this the push wake-up of each block would pay for every write made before it.
     */
    private void clearStandInOplog() {
        if (standInAdmin != null) {
            standInAdmin.getDatabase("local").getCollection("oplog.rs").deleteMany(new org.bson.Document());
        }
    }

    // ---- cases 1-3 --------------------------------------------------------------------------

    private void singleClient(String uri, String database) {
        int warmUp = intOption("warmup", 3);
        int rounds = intOption("rounds", 9);
        int ops = intOption("ops", 300);
        System.out.println("Cases 1-3: " + warmUp + " warm-up + " + rounds + " rounds x " + ops + " cycles per case");
        SingleClientCases single = new SingleClientCases(uri, database);
        List<SingleClientCases.Result> results;
        try {
            results = single.run(warmUp, rounds, ops);
        } finally {
            single.close();
        }
        SingleClientCases.Result limit = find(results, SingleClientCases.LIMIT);
        SingleClientCases.Result shedLock = find(results, SingleClientCases.SHEDLOCK);
        report.heading("1-3. Uncontended lock cycle, one thread (" + rounds + " interleaved rounds x " + ops
                + " cycles, after " + warmUp + " warm-up rounds)");
        List<List<String>> rows = new ArrayList<>();
        Map<String, Stats> ratioToLimit = new LinkedHashMap<>();
        Map<String, Stats> ratioToShedLock = new LinkedHashMap<>();
        for (SingleClientCases.Result result : results) {
            Map<String, Long> cycleCommands = new HashMap<>(result.acquireCommands());
            result.releaseCommands().forEach((command, count) -> cycleCommands.merge(command, count, Long::sum));
            charts.commands("Cases 1-3: one thread, no contention (one warm cycle)", result.lockCase().shortLabel(),
                    cycleCommands, 1);
            Stats time = new Stats(result.microsPerOp());
            Stats toLimit = ratios(result, limit);
            Stats toShedLock = ratios(result, shedLock);
            ratioToLimit.put(result.lockCase().key(), toLimit);
            ratioToShedLock.put(result.lockCase().key(), toShedLock);
            rows.add(List.of(result.lockCase().label(), Stats.format(time.median(), 0),
                    Stats.format(time.min(), 0) + "-" + Stats.format(time.max(), 0),
                    Stats.format(toLimit.median(), 2) + " (" + Stats.format(toLimit.min(), 2) + "-"
                            + Stats.format(toLimit.max(), 2) + ")",
                    Stats.format(toShedLock.median(), 2),
                    Stats.format(new Stats(result.commandMicros()).median(), 0),
                    Stats.format(new Stats(result.clientMicros()).median(), 0),
                    commands(result.acquireCommands()), commands(result.releaseCommands())));
        }
        report.table(List.of("case", "median µs per cycle", "range of round medians", "x limit: median (range)", "x ShedLock",
                "µs in driver commands", "µs on the client", "round trips: acquire", "round trips: release"), rows);
        report.line("Cycles of all cases alternate one by one, in a new shuffled order each pass; per round the"
                + " median cycle is kept, ratios are taken within each round, then the median over rounds. \"µs in driver commands\" is the driver's own"
                + " send-to-reply time of the cycle's commands (network + server); \"on the client\" is the rest.");

        SingleClientCases.Result sameCommands = find(results, "same-commands");
        SingleClientCases.Result defaultManager = find(results, "mongolock-PUSH");
        report.line("");
        report.line("Where mongolock's gap to the limit goes (medians of per-round differences): the richer document"
                + " (raw driver with mongolock's commands minus the limit) " + Stats.format(differences(sameCommands, limit), 0)
                + " µs per cycle; the library's own work (mongolock minus the raw driver with its commands) "
                + Stats.format(differences(defaultManager, sameCommands), 0) + " µs per cycle.");
        String main = "mongolock-PUSH"; // the default configuration
        double vsLimit = ratioToLimit.get(main).median();
        report.target("uncontended acquire + close <= 1.15x the limit", Stats.format(vsLimit, 2) + "x ("
                        + "default manager (push wake-up on); polling-only manager "
                        + Stats.format(ratioToLimit.get("mongolock-POLL").median(), 2) + "x)",
                vsLimit <= 1.15);
        double vsShed = ratioToShedLock.get(main).median();
        report.target("uncontended acquire + close <= ShedLock lock + unlock", Stats.format(vsShed, 2) + "x ShedLock",
                vsShed <= 1.0);
        report.target("uncontended acquire + close <= 1.05x ShedLock (issue 12)", Stats.format(vsShed, 2) + "x ShedLock"
                + (vsShed > 1.05 ? " (" + Stats.format(vsShed / 1.05, 2) + "x the target)" : ""), vsShed <= 1.05);
        report.target("uncontended acquire + close <= 1.10x the limit (issue 22)", Stats.format(vsLimit, 2) + "x"
                + (vsLimit > 1.10 ? " (" + Stats.format(vsLimit / 1.10, 2) + "x the target; the raw driver sending the"
                + " same commands: " + Stats.format(ratioToLimit.get("same-commands").median(), 2) + "x)" : ""),
                vsLimit <= 1.10);
        double ownWork = differences(defaultManager, sameCommands);
        report.target("the library's own client work <= 10 µs per cycle (issue 22)", Stats.format(ownWork, 0)
                + " µs (mongolock minus the raw driver sending its exact commands)", ownWork <= 10);
        double reentryVsLimit = ratioToLimit.get("reentrant").median();
        report.target("re-entrant acquire + close <= 1.05x the limit (issue 22)", Stats.format(reentryVsLimit, 2) + "x"
                + (reentryVsLimit > 1.05 ? " (" + Stats.format(reentryVsLimit / 1.05, 2) + "x the target)" : ""),
                reentryVsLimit <= 1.05);
        SingleClientCases.Result reentrant = find(results, "reentrant");
        long reentryTrips = reentrant.acquireCommands().values().stream().mapToLong(Long::longValue).sum();
        report.target("re-entrant acquire: at most 1 round trip", reentryTrips + " (" + commands(reentrant.acquireCommands())
                + ")", reentryTrips <= 1);
        SingleClientCases.Result lock = find(results, main);
        SingleClientCases.Result permit = find(results, SingleClientCases.PERMITS);
        long lockTrips = lock.acquireCommands().values().stream().mapToLong(Long::longValue).sum()
                + lock.releaseCommands().values().stream().mapToLong(Long::longValue).sum();
        long permitTrips = permit.acquireCommands().values().stream().mapToLong(Long::longValue).sum()
                + permit.releaseCommands().values().stream().mapToLong(Long::longValue).sum();
        report.target("semaphore acquire + release: the same round trips as a lock's (issue 32)", permitTrips
                + " (acquire " + commands(permit.acquireCommands()) + ", release " + commands(permit.releaseCommands())
                + "; the lock: " + lockTrips + ")", permitTrips == lockTrips);
        double permitVsLock = ratioToLimit.get(SingleClientCases.PERMITS).median() / vsLimit;
        report.line("One permit of a semaphore against the default lock, side by side: " + Stats.format(permitVsLock, 2)
                + "x the lock's cycle time (" + Stats.format(ratioToLimit.get(SingleClientCases.PERMITS).median(), 2)
                + "x the limit).");
    }

    private static SingleClientCases.Result find(List<SingleClientCases.Result> results, String key) {
        return results.stream().filter(r -> r.lockCase().key().equals(key)).findFirst().orElseThrow();
    }

    private static double differences(SingleClientCases.Result result, SingleClientCases.Result base) {
        List<Double> differences = new ArrayList<>();
        for (int i = 0; i < result.microsPerOp().size(); i++) {
            differences.add(result.microsPerOp().get(i) - base.microsPerOp().get(i));
        }
        return new Stats(differences).median();
    }

    private static Stats ratios(SingleClientCases.Result result, SingleClientCases.Result base) {
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < result.microsPerOp().size(); i++) {
            ratios.add(result.microsPerOp().get(i) / base.microsPerOp().get(i));
        }
        return new Stats(ratios);
    }

    private static String commands(Map<String, Long> counts) {
        if (counts == null || counts.isEmpty()) {
            return "0";
        }
        long total = counts.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder text = new StringBuilder().append(total).append(" (");
        counts.forEach((name, count) -> text.append(count > 1 ? count + "x " : "").append(name).append(", "));
        text.setLength(text.length() - 2);
        return text.append(')').toString();
    }

    // ---- cases 4-5 --------------------------------------------------------------------------

    /**
     * Case 4 with {@code proxy=}: the same handoffs directly and through {@link AwaitingGetMoreProxy}
     * ({@code await}: empty change-stream getMores held as a real server holds them; {@code pass}: the
     * hop alone), side by side in one run; see {@link ProxiedHandoffCase}. Stand-in only.
     */
    private void handoffThroughProxy(String uri, String database, boolean standIn) throws Exception {
        if (!standIn) {
            throw new IllegalArgumentException("proxy= measures the stand-in's getMore; a real server waits by itself");
        }
        com.mongodb.ServerAddress server = new com.mongodb.ConnectionString(uri).getHosts().stream().findFirst()
                .map(com.mongodb.ServerAddress::new).orElseThrow();
        new ProxiedHandoffCase(report, ProxiedHandoffCase.Settings.of(options), this::clearStandInOplog,
                (routeUri, prefix) -> startWorkers(routeUri, database, prefix))
                .run(server.getHost(), server.getPort());
    }

    private void twoProcesses(String uri, String database, boolean handoff) throws InterruptedException {
        List<ChildJvm> workers = startWorkers(uri, database, "workers");
        ChildJvm a = workers.get(0);
        ChildJvm b = workers.get(1);
        List<WakeUpMode> modes = List.of(WakeUpMode.PUSH, WakeUpMode.POLL);
        if (handoff) {
            handoff(a, b, modes);
        } else {
            contended(a, b, modes);
        }
    }

    private void handoff(ChildJvm a, ChildJvm b, List<WakeUpMode> modes) throws InterruptedException {
        int handoffs = intOption("handoffs", 40);
        int rounds = 4;
        List<Integer> holds = List.of(10, 250);
        System.out.println("Case 4: handoff, " + handoffs + " per mode and hold time, in " + rounds + " interleaved rounds");
        Map<String, List<Double>> latencies = new LinkedHashMap<>();
        Map<String, List<Double>> attempts = new LinkedHashMap<>();
        List<String> feedTraffic = new ArrayList<>();
        for (WakeUpMode mode : modes) {
            handoffs(a, b, mode, "handoff-warm-up", 20, 6, new ArrayList<>()); // JIT and connections
        }
        for (int round = 0; round < rounds; round++) {
            for (int m = 0; m < modes.size(); m++) {
                WakeUpMode mode = modes.get((m + round) % modes.size());
                for (int hold : holds) {
                    List<Double> sample = latencies.computeIfAbsent(mode.name() + " " + hold, k -> new ArrayList<>());
                    counts(a, mode);
                    counts(b, mode);
                    clearStandInOplog();
                    long blockStart = System.nanoTime();
                    sample.addAll(handoffs(a, b, mode, "handoff-" + hold, hold, handoffs / rounds,
                            attempts.computeIfAbsent(mode.name() + " " + hold, k -> new ArrayList<>())));
                    if (mode == WakeUpMode.PUSH && round == rounds - 1) {
                        double seconds = (System.nanoTime() - blockStart) / 1e9;
                        Map<String, String> ca = keyValues(counts(a, mode));
                        Map<String, String> cb = keyValues(counts(b, mode));
                        feedTraffic.add(String.format(Locale.ROOT, "%d ms hold: %.0f getMore/s per manager, mean %s ms each",
                                hold, (Long.parseLong(ca.get("getMore")) + Long.parseLong(cb.get("getMore"))) / 2 / seconds,
                                ca.get("getMoreMeanMs")));
                    }
                }
            }
            System.out.printf("  handoff round %d/%d done%n", round + 1, rounds);
        }
        for (int hold : holds) {
            for (WakeUpMode mode : modes) {
                charts.handoff(mode, hold, latencies.get(mode.name() + " " + hold));
            }
        }
        report.heading("4. Handoff across two processes (time from the holder's close() to the waiter's acquire()"
                + " returning; " + handoffs + " handoffs per row, alternating holder, in " + rounds + " interleaved rounds)");
        List<List<String>> rows = new ArrayList<>();
        for (int hold : holds) {
            Stats poll = new Stats(latencies.get(WakeUpMode.POLL.name() + " " + hold));
            for (WakeUpMode mode : modes) {
                Stats stats = new Stats(latencies.get(mode.name() + " " + hold));
                double meanAttempts = attempts.get(mode.name() + " " + hold).stream().mapToDouble(Double::doubleValue)
                        .average().orElse(Double.NaN);
                rows.add(List.of(mode.label, hold + " ms", Stats.format(stats.percentile(50), 2),
                        Stats.format(stats.percentile(99), 2), Stats.format(stats.max(), 2),
                        mode == WakeUpMode.POLL ? "1.00" : Stats.format(stats.percentile(50) / poll.percentile(50), 3),
                        Stats.format(meanAttempts, 1)));
            }
        }
        report.table(List.of("wake-up", "waiter parked for (hold)", "p50 ms", "p99 ms", "max ms", "p50 / polling p50",
                "waiter's attempts per handoff (mean)"), rows);
        report.line("p99 is the nearest-rank percentile of " + handoffs + " samples, i.e. close to the maximum."
                + " Change-stream traffic of the push feeds (last push block per hold time): " + feedTraffic + ".");
        double idle = idleGetMoresPerSecond(a, b);
        String feeds = status(a) + " / " + status(b);
        report.line(String.format(Locale.ROOT, "Idle push feeds: %.1f getMore/s per manager over %d s in which nobody waited"
                + " (both managers had waited just before, so both feeds were open: %s).",
                idle, IDLE_SECONDS, feeds));
        report.target("idle getMore/s per manager < 20 (stand-in, which answers getMore at once)",
                String.format(Locale.ROOT, "%.1f", idle), idle < 20);
        Stats push = new Stats(latencies.get(WakeUpMode.PUSH.name() + " " + holds.get(1)));
        Stats poll = new Stats(latencies.get(WakeUpMode.POLL.name() + " " + holds.get(1)));
        report.target("handoff p50 <= 5 ms with push (loopback)", Stats.format(push.percentile(50), 2)
                + " ms after a " + holds.get(1) + " ms hold (polling: " + Stats.format(poll.percentile(50), 1)
                + " ms, " + Stats.format(poll.percentile(50) / push.percentile(50), 1) + "x slower)",
                push.percentile(50) <= 5.0);
        report.target("handoff p50 <= 3 ms with push after a 250 ms wait (issue 12)", Stats.format(push.percentile(50), 2)
                + " ms after a " + holds.get(1) + " ms hold (" + Stats.format(push.percentile(50) / 3.0, 2) + "x the target)",
                push.percentile(50) <= 3.0);
    }

    static final int IDLE_SECONDS = 5;

    /** getMore commands per second and manager while both push feeds are open and nobody waits. */
    static double idleGetMoresPerSecond(ChildJvm a, ChildJvm b) throws InterruptedException {
        // Both managers wait once, so both open their change streams; then nobody waits.
        handoffsKeepingManagers(a, b, WakeUpMode.PUSH, "idle-feeds", 20, 2, new ArrayList<>());
        Thread.sleep(1_000);
        counts(a, WakeUpMode.PUSH);
        counts(b, WakeUpMode.PUSH);
        long start = System.nanoTime();
        Thread.sleep(IDLE_SECONDS * 1000L);
        Map<String, String> ca = keyValues(counts(a, WakeUpMode.PUSH));
        Map<String, String> cb = keyValues(counts(b, WakeUpMode.PUSH));
        double seconds = (System.nanoTime() - start) / 1e9;
        return (Long.parseLong(ca.get("getMore")) + Long.parseLong(cb.get("getMore"))) / 2.0 / seconds;
    }

    /** Two worker JVMs, A and B, ready; ended with the section. Their managers use collections {@code <prefix>_<mode>}. */
    private List<ChildJvm> startWorkers(String uri, String database, String collectionPrefix) {
        List<ChildJvm> workers = new ArrayList<>();
        for (String label : List.of("worker-A", "worker-B")) {
            ChildJvm worker = ChildJvm.start(label, List.of("-Xmx256m"), Worker.class, uri, database, label, collectionPrefix);
            children.add(worker);
            workers.add(worker);
        }
        for (ChildJvm worker : workers) {
            worker.expect(Protocol.READY, Duration.ofSeconds(60));
        }
        return workers;
    }

    static String counts(ChildJvm worker, WakeUpMode mode) {
        worker.send("COUNTS " + mode + " -");
        return worker.expect("COUNTS", Duration.ofSeconds(10));
    }

    static String status(ChildJvm worker) {
        worker.send("STATUS PUSH -");
        return worker.expect("STATUS", Duration.ofSeconds(10));
    }

    /** @param attempts receives, per kept handoff, the waiter's acquisition attempts (findAndModify commands) */
    private static List<Double> handoffs(ChildJvm a, ChildJvm b, WakeUpMode mode, String name, int holdMillis, int count,
                                         List<Double> attempts) throws InterruptedException {
        List<Double> millis = handoffsKeepingManagers(a, b, mode, name, holdMillis, count, attempts);
        reset(a, mode);
        reset(b, mode);
        return millis;
    }

    /** As {@link #handoffs}, but the managers (and their open change streams) stay for what follows. */
    static List<Double> handoffsKeepingManagers(ChildJvm a, ChildJvm b, WakeUpMode mode, String name, int holdMillis,
                                                        int count, List<Double> attempts) throws InterruptedException {
        Duration timeout = Duration.ofSeconds(30);
        ChildJvm holder = a;
        ChildJvm waiter = b;
        holder.send("HOLD " + mode + " " + name);
        holder.expect("HELD", timeout);
        List<Double> millis = new ArrayList<>();
        // The first two handoffs of a block are not kept: a fresh push manager opens its change stream
        // when it first waits, and that first wait is served by polling.
        for (int i = -2; i < count; i++) {
            waiter.send("WAIT " + mode + " " + name);
            waiter.expect("WAITING", timeout);
            Thread.sleep(holdMillis);
            holder.send("RELEASE " + mode + " " + name);
            long released = Long.parseLong(holder.expect("RELEASED", timeout));
            String[] acquiredAnswer = waiter.expect("ACQUIRED", timeout).split(" ");
            long acquired = Long.parseLong(acquiredAnswer[0]);
            if (i >= 0) {
                millis.add((acquired - released) / 1e6);
                attempts.add(Double.parseDouble(acquiredAnswer[1]));
            }
            ChildJvm swap = holder;
            holder = waiter;
            waiter = swap;
        }
        holder.send("RELEASE " + mode + " " + name);
        holder.expect("RELEASED", timeout);
        return millis;
    }

    /** Replaces a worker's manager of that mode, ending its change stream if it opened one. */
    static void reset(ChildJvm worker, WakeUpMode mode) {
        worker.send("RESET " + mode + " -");
        worker.expect("RESET", Duration.ofSeconds(30));
    }

    private void contended(ChildJvm a, ChildJvm b, List<WakeUpMode> modes) {
        int millis = intOption("contend-ms", 2000);
        int rounds = intOption("contend-rounds", 3);
        int threads = 8;
        List<Integer> nameCounts = List.of(1, 1000);
        List<String> feedStatus = new ArrayList<>();
        System.out.println("Case 5: contention, 2 processes x " + threads + " threads, " + rounds + " rounds of "
                + millis + " ms per mode and name count");
        report.heading("5. Contended throughput, 2 processes x " + threads + " threads, " + millis + " ms per round, "
                + rounds + " interleaved rounds");
        List<List<String>> rows = new ArrayList<>();
        for (WakeUpMode mode : modes) {
            // Not kept: JIT, connection pools and the stand-in's first documents of a fresh section.
            long startAt = System.nanoTime() + 500_000_000L;
            String command = "CONTEND " + mode + " contend-warm-up 100 " + threads + " 1000 " + startAt;
            a.send(command);
            b.send(command);
            a.expect(Protocol.RESULT, Duration.ofSeconds(60));
            b.expect(Protocol.RESULT, Duration.ofSeconds(60));
            reset(a, mode);
            reset(b, mode);
        }
        for (int names : nameCounts) {
            Map<WakeUpMode, List<Double>> rates = new LinkedHashMap<>();
            Map<WakeUpMode, long[]> totals = new LinkedHashMap<>();
            Map<WakeUpMode, Map<String, Long>> commandTotals = new LinkedHashMap<>();
            for (int round = 0; round < rounds; round++) {
                for (int m = 0; m < modes.size(); m++) {
                    WakeUpMode mode = modes.get((m + round) % modes.size());
                    String prefix = "contend-" + names;
                    clearStandInOplog();
                    long startAt = System.nanoTime() + 500_000_000L;
                    String command = "CONTEND " + mode + " " + prefix + " " + names + " " + threads + " " + millis + " " + startAt;
                    a.send(command);
                    b.send(command);
                    Duration timeout = Duration.ofMillis(millis * 3L + 30_000);
                    Map<String, String> ra = keyValues(a.expect(Protocol.RESULT, timeout));
                    Map<String, String> rb = keyValues(b.expect(Protocol.RESULT, timeout));
                    if (mode == WakeUpMode.PUSH) {
                        feedStatus.add(status(a) + "/" + status(b) + " getMore " + ra.get("getMoreMeanMs") + "/"
                                + rb.get("getMoreMeanMs") + " ms");
                    }
                    reset(a, mode);
                    reset(b, mode);
                    long opsA = Long.parseLong(ra.get("ops"));
                    long opsB = Long.parseLong(rb.get("ops"));
                    double seconds = Math.max(Long.parseLong(ra.get("elapsedMs")), Long.parseLong(rb.get("elapsedMs"))) / 1000.0;
                    rates.computeIfAbsent(mode, k -> new ArrayList<>()).add((opsA + opsB) / seconds);
                    long[] total = totals.computeIfAbsent(mode, k -> new long[3]);
                    total[0] += opsA;
                    total[1] += opsB;
                    total[2] += Long.parseLong(ra.get("timeouts")) + Long.parseLong(rb.get("timeouts"));
                    Map<String, Long> commands = commandTotals.computeIfAbsent(mode, k -> new HashMap<>());
                    addCommands(commands, ra.get("commands"));
                    addCommands(commands, rb.get("commands"));
                    System.out.printf("  contention %d name(s), %s, round %d: %.0f acquisitions/s%n", names, mode.label,
                            round + 1, (opsA + opsB) / seconds);
                }
            }
            Stats pollRate = new Stats(rates.get(WakeUpMode.POLL));
            for (WakeUpMode mode : modes) {
                Stats rate = new Stats(rates.get(mode));
                long[] total = totals.get(mode);
                long ops = total[0] + total[1];
                Map<String, Long> commands = commandTotals.get(mode);
                long lockCommands = commands.values().stream().mapToLong(Long::longValue).sum()
                        - commands.getOrDefault("getMore", 0L);
                charts.commands("Case 5: 2 processes x " + threads + " threads, " + rounds + " rounds of " + millis + " ms",
                        (names == 1 ? "1 lock" : names + " names") + ", " + mode.label, commands, ops);
                rows.add(List.of(names == 1 ? "1 lock" : names + " names", mode.label,
                        Stats.format(rate.median(), 0) + " (" + Stats.format(rate.min(), 0) + "-" + Stats.format(rate.max(), 0) + ")",
                        mode == WakeUpMode.POLL ? "1.00" : Stats.format(rate.median() / pollRate.median(), 2),
                        String.format(Locale.ROOT, "%.0f%% / %.0f%%", 100.0 * total[0] / Math.max(ops, 1),
                                100.0 * total[1] / Math.max(ops, 1)),
                        Stats.format((double) lockCommands / Math.max(ops, 1), 2),
                        commands.toString().replace("=", ": "), String.valueOf(total[2])));
            }
        }
        report.table(List.of("names", "wake-up", "acquisitions/s: median (range)", "/ polling", "share A / B",
                "commands per acquisition (without getMore)", "commands, all rounds", "acquires timed out (waited a whole round)"), rows);
        report.line("Each acquisition is acquire + close. Commands are counted at both workers' drivers; getMore is the"
                + " change stream (push) and is shown but not counted per acquisition. Push wake-up status (A/B) and mean"
                + " getMore time at the end of each push round: " + feedStatus + ".");
    }

    static void addCommands(Map<String, Long> into, String rendered) {
        String body = rendered.substring(1, rendered.length() - 1);
        if (body.isEmpty()) {
            return;
        }
        for (String pair : body.split(",")) {
            String[] kv = pair.split("=");
            into.merge(kv[0], Long.parseLong(kv[1]), Long::sum);
        }
    }

    static Map<String, String> keyValues(String line) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String token : line.trim().split(" ")) {
            String[] kv = token.split("=", 2);
            values.put(kv[0], kv.length == 2 ? kv[1] : "");
        }
        return values;
    }

    // ---- case 6 -----------------------------------------------------------------------------

    private void renewal(String uri, String database, boolean standIn) {
        int locks = intOption("renewal-locks", 10_000);
        // The stand-in scans for every $in (real MongoDB uses the _id index): one renewal of 10,000 by the
        // earlier protocol's updateMany takes about a minute there, so the interval (lease/3) must be longer.
        long leaseMillis = Long.parseLong(options.getOrDefault("renewal-lease-ms", standIn ? "240000" : "30000"));
        List<Map<String, String>> results = new ArrayList<>();
        for (LibraryBuild build : builds) {
            System.out.println("Case 6: renewal, " + locks + " locks held by one manager, lease " + leaseMillis + " ms,"
                    + " library " + build.label() + " (waits for the first renewal that starts after all are held)");
            ChildJvm probe = ChildJvm.start("renewal-probe", List.of("-Xmx512m", "-XX:+UseSerialGC"), build.classpath(),
                    RenewalProbe.class, uri, database, String.valueOf(locks), String.valueOf(leaseMillis),
                    "renewal_" + results.size());
            children.add(probe);
            results.add(keyValues(probe.expect(Protocol.RESULT, Duration.ofMillis(leaseMillis + 900_000))));
            probe.close();
        }
        boolean sideBySide = builds.size() > 1;
        long intervalMs = Long.parseLong(results.get(0).get("intervalMs"));
        report.heading("6. Renewal load: one manager holding " + locks + " locks (lease " + leaseMillis + " ms,"
                + " renewal interval " + intervalMs + " ms)" + (sideBySide ? ", each library build in turn" : ""));
        List<String> header = new ArrayList<>(List.of("measure"));
        builds.forEach(build -> header.add(sideBySide ? build.label() : "value"));
        List<List<String>> rows = new ArrayList<>();
        rows.add(row("round trips of the renewal thread in one interval", results,
                r -> r.get("renewalCommands") + " " + r.get("renewalCommandNames")));
        rows.add(row("documents written by them (the server's `n`)", results, r -> r.get("renewalDocuments")));
        rows.add(row("oplog bytes for them, MongoDB 6.0-8.0 entry format (estimate)", results,
                r -> bytes(Long.parseLong(r.get("renewalOplogEstimateBytes")))));
        rows.add(row("oplog entries / bytes the server logged in that interval (measured"
                + (standIn ? "; the stand-in's own format" : "") + ")", results, r -> Long.parseLong(r.get("oplogEntries")) < 0
                ? "not readable" : r.get("oplogEntries") + " / " + bytes(Long.parseLong(r.get("oplogBytes")))));
        rows.add(row("duration of that renewal run", results, r -> !Boolean.parseBoolean(r.get("renewalSeen"))
                // False when no command of the renewal thread succeeded after the run began (e.g. each
                // updateMany outran the store timeout on a loaded stand-in): the duration is then meaningless.
                ? "none succeeded (" + r.get("renewalUpdates") + " update(s) sent; the probe's log says why)"
                : r.get("renewalMs") + " ms" + (Long.parseLong(r.get("renewalMs")) > intervalMs
                ? " (longer than the interval: runs go back to back)" : " (fits in the interval)")));
        rows.add(row("heap per held lock (used heap after full GC, before/after)", results,
                r -> Stats.format(Double.parseDouble(r.get("heapBytesPerLock")), 0) + " bytes"));
        rows.add(row("live threads before / after acquiring all", results, r -> r.get("threadsBefore") + " / "
                + r.get("threadsAfter") + " (" + r.get("threadsBeforeManager") + " before the manager existed)"));
        rows.add(row("time to acquire all " + locks + " (one thread, sequential)", results,
                r -> r.get("acquireMs") + " ms, " + r.get("acquireCommands") + " commands"));
        rows.add(row("leases still held when the case ended", results, r -> r.get("stillHeld") + " of " + locks));
        rows.add(row("a renewal also ran during the acquisitions", results, r -> r.get("renewedDuringAcquisition")));
        report.table(header, rows);
        if (sideBySide) {
            report.line("Libraries: " + builds.stream().map(b -> b.label() + " = " + b.description()).toList() + ".");
        }
        report.line("Documents written are counted from the server's answers to the renewal thread's commands (`n` of"
                + " an update, `lastErrorObject.n` of a findAndModify), as the library's RenewalCostTest does. The oplog"
                + " estimate encodes, per document written, the entry MongoDB 6.0-8.0 writes (`$v: 2` delta of the"
                + " fields set, `o2._id`, `ns`, `ui`, `ts`, `t`, `v`, `wall`; a single-document write on a replica set"
                + " is retryable by default and adds `lsid`, `txnNumber`, `stmtId`, `prevOpTime`, and for a"
                + " findAndModify `needsRetryImage`); see OplogEstimate.");
        for (int i = 0; i < results.size(); i++) {
            Map<String, String> r = results.get(i);
            if (!"-".equals(r.get("renewerState"))) {
                report.line(builds.get(i).label() + ": no renewal was seen within two intervals after all locks were"
                        + " held. The renewal thread was: `" + r.get("renewerState") + "`.");
            }
        }
        Map<String, String> r = results.get(results.size() - 1); // the build under test
        boolean renewalSeen = Boolean.parseBoolean(r.get("renewalSeen"));
        long renewalCommands = Long.parseLong(r.get("renewalCommands"));
        long documents = Long.parseLong(r.get("renewalDocuments"));
        double heap = Double.parseDouble(r.get("heapBytesPerLock"));
        int threadsBefore = Integer.parseInt(r.get("threadsBefore"));
        int threadsAfter = Integer.parseInt(r.get("threadsAfter"));
        report.target("renewal: <= 10 round trips per interval for " + locks + " held locks",
                renewalCommands + " in one interval" + (renewalSeen ? "" : ", none succeeded"),
                renewalCommands >= 1 && renewalCommands <= 10 && renewalSeen);
        report.target("renewal (issue 20): at most 2 documents written per manager per interval for " + locks
                + " held locks", documents + " in one interval", renewalSeen && documents >= 1 && documents <= 2);
        report.target("renewal (issue 20): 1 round trip per interval", renewalCommands + " " + r.get("renewalCommandNames"),
                renewalSeen && renewalCommands == 1);
        report.target("under 1 KB heap per held lock", Stats.format(heap, 0) + " bytes", heap < 1024);
        report.target("heap per held lock <= 400 bytes (issue 22)", Stats.format(heap, 0) + " bytes", heap <= 400);
        report.target("no thread per lock", (threadsAfter - threadsBefore) + " threads more with " + locks + " held",
                threadsAfter - threadsBefore < 2);
    }

    private static List<String> row(String measure, List<Map<String, String>> results,
                                     java.util.function.Function<Map<String, String>, String> cell) {
        List<String> row = new ArrayList<>(List.of(measure));
        results.forEach(result -> row.add(cell.apply(result)));
        return row;
    }

    private static String bytes(long bytes) {
        return bytes < 10_000 ? bytes + " B" : String.format(Locale.ROOT, "%,d B (%.2f MB)", bytes, bytes / 1e6);
    }

    // ---- case 8 -----------------------------------------------------------------------------

    private void crash(String uri, String database, boolean standIn) {
        List<String> shapes = List.of(options.getOrDefault("crash-shapes", "scan,waits").split(","));
        // On the stand-in the earlier protocol's holder cannot keep 10,000 leases shorter than a few minutes (its
        // updateMany scans and locks the collection): the lease case 6 uses there (docs/benchmark.md, issue 20).
        CrashRecoveryCase.Settings settings = new CrashRecoveryCase.Settings(intOption("crash-locks", 10_000),
                Long.parseLong(options.getOrDefault("crash-lease-ms", standIn ? "240000" : "30000")), shapes,
                intOption("crash-threads", 8),
                Map.of("scan", Long.parseLong(options.getOrDefault("crash-scan-budget-ms", "1500000")),
                        "waits", Long.parseLong(options.getOrDefault("crash-waits-budget-ms", "720000"))));
        new CrashRecoveryCase(report, uri, database, standIn, settings, children).run(builds);
    }

    // ---- case 7 -----------------------------------------------------------------------------

    private void fairness(String uri, String database) {
        // Its own collections: the hot lock pays for no other case's documents where the stand-in scans.
        List<ChildJvm> workers = startWorkers(uri, database, "fair");
        String wakeUp = options.getOrDefault("fair-wake-up", WakeUpMode.PUSH.label);
        WakeUpMode mode = List.of(WakeUpMode.values()).stream().filter(m -> m.label.equals(wakeUp)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("fair-wake-up=" + wakeUp + ": use push or polling"));
        FairnessCase.Settings settings = new FairnessCase.Settings(mode, 8, intOption("fair-ms", 10_000), 10_000,
                intOption("fair-solo-ms", 3_000), intOption("quick-ms", 5_000), intOption("quick-hold-ms", 20),
                intOption("quick-pause-ms", 50));
        new FairnessCase(report, charts, settings, this::clearStandInOplog).run(workers.get(0), workers.get(1));
    }

    // ---- case 10 ----------------------------------------------------------------------------

    private void readHeavy(String uri, String database) throws IOException {
        List<ChildJvm> workers = startWorkers(uri, database, "readheavy");
        new ReadHeavyCase(report, ReadHeavyCase.Settings.of(options), this::clearStandInOplog)
                .run(workers.get(0), workers.get(1));
    }

    // ---- case 9 -----------------------------------------------------------------------------

    private void hotLockInOneJvm(String uri, String database, boolean standIn) throws IOException {
        int threads = intOption("hotjvm-threads", 4);
        int millis = intOption("hotjvm-ms", 10_000);
        List<String> routes = List.of(options.getOrDefault("hotjvm-routes", "direct").split(","));
        if (!standIn && !routes.equals(List.of("direct"))) {
            throw new IllegalArgumentException("hotjvm-routes=" + routes + ": the getMore proxy is for the stand-in only;"
                    + " a real server waits by itself");
        }
        List<List<String>> rows = new ArrayList<>();
        Double directRatio = null;
        String directFigures = null;
        for (String route : routes) {
            AwaitingGetMoreProxy proxy = switch (route) {
                case "direct" -> null;
                case "pass", "await" -> AwaitingGetMoreProxy.start("127.0.0.1", Integer.parseInt(uri.substring(uri.lastIndexOf(':') + 1)),
                        route.equals("await"), 256);
                default -> throw new IllegalArgumentException("hotjvm-routes: " + route + " is not one of direct, pass, await");
            };
            try {
                System.out.println("Case 9: one hot lock, 2 managers x " + threads + " threads in one JVM, " + millis
                        + " ms, route " + route);
                Map<String, String> result = hotLockBlocks(proxy == null ? uri : proxy.uri(), database, threads, millis, route);
                double[] solo = java.util.Arrays.stream(result.get("solo").split(",")).mapToDouble(Double::parseDouble).toArray();
                double soloRate = OneJvmHotLock.median(solo);
                long hot = Long.parseLong(result.get("hot"));
                double hotRate = hot / (millis / 1000.0);
                long first = Long.parseLong(result.get("first"));
                rows.add(List.of(route.equals("direct") ? "direct" : route.equals("pass") ? "pass-through proxy" : "awaiting proxy",
                        Stats.format(hotRate, 0), first + " / " + (hot - first), result.get("timeouts"),
                        Stats.format(soloRate, 0) + " (" + result.get("solo") + ")", Stats.format(hotRate / soloRate, 3),
                        result.get("commands")));
                if (route.equals("direct")) {
                    directRatio = hotRate / soloRate;
                    directFigures = Stats.format(hotRate, 0) + " grants/s against " + Stats.format(soloRate, 0) + " cycles/s";
                }
            } finally {
                if (proxy != null) {
                    proxy.close();
                }
            }
        }
        report.heading("9. One hot lock, 2 managers x " + threads + " threads in one JVM (push), " + millis + " ms");
        report.table(List.of("route", "grants/s", "first / second manager", "timeouts", "one thread alone, cycles/s (median"
                + " of 6 1 s slices around it)", "ratio", "commands in the hot block (both managers)"), rows);
        if (routes.size() > 1) {
            report.line("Routes as in case 4 with `proxy=`: the awaiting proxy holds an empty change-stream getMore until"
                    + " a write through it is answered or the await ends, as a real server holds it; the lone thread"
                    + " goes through the same route as the hot lock.");
        }
        if (directRatio != null) {
            report.target("hot lock, 2 managers x " + threads + " threads in one JVM >= 0.5x one thread alone",
                    Stats.format(directRatio, 3) + "x (" + directFigures + ")", directRatio >= 0.5);
        }
    }

    /** Case 9's blocks on one route, in a worker of their own: warm-up, lone thread, hot lock, lone thread. */
    private Map<String, String> hotLockBlocks(String uri, String database, int threads, int millis, String route) {
        String label = "worker-hotjvm-" + route;
        ChildJvm worker = ChildJvm.start(label, List.of("-Xmx256m"), Worker.class, uri, database, label, "hotjvm_" + route);
        try {
            worker.expect(Protocol.READY, Duration.ofSeconds(60));
            Duration answerWithin = Duration.ofMillis(millis + 60_000L);
            // The oplog is emptied only while no change stream is open: each hot block's managers are replaced after
            // it (RESET). Emptying it under an open stream made the stand-in fail a command of that client (its
            // driver then paused the connection pool, and the lone thread's next release failed; seen twice).
            clearStandInOplog();
            worker.send("HOTJVM " + WakeUpMode.PUSH + " hotjvm-warm-up " + threads + " 2000"); // JIT, connections, feeds
            worker.expect(Protocol.RESULT, answerWithin);
            reset(worker, WakeUpMode.PUSH);
            clearStandInOplog();
            worker.send("SOLO " + WakeUpMode.PUSH + " hotjvm-solo 3");
            String before = keyValues(worker.expect(Protocol.RESULT, answerWithin)).get("solo");
            clearStandInOplog();
            worker.send("HOTJVM " + WakeUpMode.PUSH + " hotjvm " + threads + " " + millis);
            Map<String, String> result = keyValues(worker.expect(Protocol.RESULT, answerWithin));
            reset(worker, WakeUpMode.PUSH);
            clearStandInOplog();
            worker.send("SOLO " + WakeUpMode.PUSH + " hotjvm-solo 3");
            result.put("solo", before + "," + keyValues(worker.expect(Protocol.RESULT, answerWithin)).get("solo"));
            return result;
        } finally {
            worker.close();
        }
    }

    // ---- machine ----------------------------------------------------------------------------

    private static String machine() {
        return Runtime.getRuntime().availableProcessors() + " CPUs (shared with other builds), "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch") + ", Java "
                + System.getProperty("java.version") + ", load average at the start " + loadAverage();
    }

    /** The library jar this JVM loaded (the build under test). */
    private static Path libraryJar() {
        try {
            return Path.of(io.github.mongolock.MongoLockManager.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException unknown) {
            throw new IllegalStateException("Where is the library jar? " + unknown.getMessage(), unknown);
        }
    }

    private static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException | RuntimeException unknown) {
            return "unknown";
        }
    }
}
