package io.github.mongolock.benchmark;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Case 10 (issue 32): a read-heavy workload, 2 worker JVMs x {@code threads} threads, each operation a read with
 * probability {@code readPercent} % on one of a few names, held {@code holdMicros}; once with the read-write lock
 * ({@code readWriteLock(name).read()/write()}), once with the exclusive lock ({@code acquire(name)}) for every
 * operation, in interleaved rounds (the order alternates), push wake-up (the default manager) in both. See
 * {@link ReadHeavyLoad} for one worker's side and its cross-process correctness check.
 */
final class ReadHeavyCase {

    record Settings(int threads, int millis, int rounds, int names, int holdMicros, int readPercent) {
        static Settings of(Map<String, String> options) {
            return new Settings(Integer.parseInt(options.getOrDefault("readheavy-threads", "8")),
                    Integer.parseInt(options.getOrDefault("readheavy-ms", "3000")),
                    Integer.parseInt(options.getOrDefault("readheavy-rounds", "3")),
                    Integer.parseInt(options.getOrDefault("readheavy-names", "4")),
                    Integer.parseInt(options.getOrDefault("readheavy-hold-us", "1000")),
                    Integer.parseInt(options.getOrDefault("readheavy-read-percent", "95")));
        }
    }

    private static final List<String> KINDS = List.of("rw", "ex");
    private static final Map<String, String> LABELS = Map.of("rw", "read-write lock: read() / write()",
            "ex", "exclusive lock: acquire() for both");

    /** One kind's sums over the kept rounds. */
    private static final class Totals {
        final List<Double> rates = new ArrayList<>();
        long reads;
        long writes;
        double seconds;
        long timeouts;
        long violations;
        long errors;
        String firstError = "-";
        final long[] readWaits = new long[25 * ReadHeavyLoad.BUCKETS_PER_E];
        final long[] writeWaits = new long[25 * ReadHeavyLoad.BUCKETS_PER_E];
        final Map<String, Long> commands = new HashMap<>();
    }

    private final Report report;
    private final Settings settings;
    private final Runnable clearStandInOplog;

    ReadHeavyCase(Report report, Settings settings, Runnable clearStandInOplog) {
        this.report = report;
        this.settings = settings;
        this.clearStandInOplog = clearStandInOplog;
    }

    void run(ChildJvm a, ChildJvm b) throws IOException {
        Settings s = settings;
        System.out.println("Case 10: read-heavy, 2 processes x " + s.threads() + " threads, " + s.readPercent() + " % reads on "
                + s.names() + " names, hold " + s.holdMicros() + " µs, " + s.rounds() + " rounds of " + s.millis()
                + " ms per lock kind");
        Path sharedFile = Files.createTempFile("mongolock-readheavy-", ".words");
        try {
            try (RandomAccessFile file = new RandomAccessFile(sharedFile.toFile(), "rw")) {
                file.setLength(8L * s.names());
            }
            Map<String, Totals> totals = new LinkedHashMap<>();
            KINDS.forEach(kind -> totals.put(kind, new Totals()));
            List<Double> ratios = new ArrayList<>();
            for (String kind : KINDS) { // not kept: JIT, connection pools, the first documents of each name
                block(a, b, kind, "readheavy-warm-up", Math.min(s.millis(), 1000), sharedFile, new Totals());
            }
            a.send("CYCLES " + WakeUpMode.PUSH + " readheavy-cycle");
            Map<String, String> cycles = Benchmark.keyValues(a.expect(Protocol.RESULT, Duration.ofSeconds(60)));
            Benchmark.reset(a, WakeUpMode.PUSH);
            for (int round = 0; round < s.rounds(); round++) {
                Map<String, Double> rateOfRound = new HashMap<>();
                for (int k = 0; k < KINDS.size(); k++) {
                    String kind = KINDS.get((k + round) % KINDS.size());
                    Totals total = totals.get(kind);
                    double rate = block(a, b, kind, "readheavy", s.millis(), sharedFile, total);
                    rateOfRound.put(kind, rate);
                    System.out.printf(Locale.ROOT, "  read-heavy %s, round %d: %.0f operations/s%n", kind, round + 1, rate);
                }
                ratios.add(rateOfRound.get("rw") / rateOfRound.get("ex"));
            }
            report(totals, new Stats(ratios), cycles);
        } finally {
            Files.deleteIfExists(sharedFile);
        }
    }

    /** One block of one kind on both workers; adds to {@code total} and returns its operations per second. */
    private double block(ChildJvm a, ChildJvm b, String kind, String prefix, int millis, Path sharedFile, Totals total) {
        Settings s = settings;
        clearStandInOplog.run();
        long startAt = System.nanoTime() + 500_000_000L;
        String command = "READHEAVY " + WakeUpMode.PUSH + " " + prefix + "-" + kind + " " + kind + " " + s.names() + " "
                + s.threads() + " " + millis + " " + startAt + " " + s.holdMicros() + " " + s.readPercent() + " " + sharedFile;
        a.send(command);
        b.send(command);
        Duration timeout = Duration.ofMillis(millis * 3L + 30_000);
        Map<String, String> ra = Benchmark.keyValues(a.expect(Protocol.RESULT, timeout));
        Map<String, String> rb = Benchmark.keyValues(b.expect(Protocol.RESULT, timeout));
        Benchmark.reset(a, WakeUpMode.PUSH);
        Benchmark.reset(b, WakeUpMode.PUSH);
        long ops = 0;
        for (Map<String, String> r : List.of(ra, rb)) {
            long reads = Long.parseLong(r.get("reads"));
            long writes = Long.parseLong(r.get("writes"));
            ops += reads + writes;
            total.reads += reads;
            total.writes += writes;
            total.timeouts += Long.parseLong(r.get("timeouts"));
            total.violations += Long.parseLong(r.get("violations"));
            long errors = Long.parseLong(r.get("errors"));
            total.errors += errors;
            if (errors > 0 && total.firstError.equals("-")) {
                total.firstError = r.get("firstError").replace('_', ' ');
            }
            addBuckets(total.readWaits, r.get("readWaits"));
            addBuckets(total.writeWaits, r.get("writeWaits"));
            Benchmark.addCommands(total.commands, r.get("commands"));
        }
        double seconds = Math.max(Long.parseLong(ra.get("elapsedMs")), Long.parseLong(rb.get("elapsedMs"))) / 1000.0;
        total.seconds += seconds;
        total.rates.add(ops / seconds);
        return ops / seconds;
    }

    private void report(Map<String, Totals> totals, Stats ratios, Map<String, String> cycles) {
        Settings s = settings;
        report.heading("10. Read-heavy workload (issue 32): 2 processes x " + s.threads() + " threads, " + s.readPercent()
                + " % reads on " + s.names() + " names, hold " + s.holdMicros() + " µs, " + s.rounds()
                + " interleaved rounds of " + s.millis() + " ms per lock kind");
        List<List<String>> rows = new ArrayList<>();
        for (Map.Entry<String, Totals> entry : totals.entrySet()) {
            Totals t = entry.getValue();
            Stats rate = new Stats(t.rates);
            long ops = t.reads + t.writes;
            long lockCommands = t.commands.values().stream().mapToLong(Long::longValue).sum()
                    - t.commands.getOrDefault("getMore", 0L);
            long grantsAndReleases = t.commands.getOrDefault("findAndModify", 0L) + t.commands.getOrDefault("update", 0L);
            rows.add(List.of(LABELS.get(entry.getKey()),
                    Stats.format(rate.median(), 0) + " (" + Stats.format(rate.min(), 0) + "-" + Stats.format(rate.max(), 0) + ")",
                    Stats.format(t.reads / t.seconds, 0) + " / " + Stats.format(t.writes / t.seconds, 0),
                    waits(t.readWaits), waits(t.writeWaits),
                    Stats.format((double) grantsAndReleases / Math.max(ops, 1), 2),
                    Stats.format((double) lockCommands / Math.max(ops, 1), 2),
                    new java.util.TreeMap<>(t.commands).toString().replace("=", ": "),
                    String.valueOf(t.timeouts), t.violations + (t.errors > 0 ? " (" + t.errors + " errors, first: "
                            + t.firstError + ")" : "")));
        }
        report.table(List.of("lock", "operations/s: median (range)", "reads/s / writes/s (all rounds)",
                "read wait ms: p50 / p99 / max", "write wait ms: p50 / p99 / max",
                "round trips per operation: findAndModify + update", "all commands per operation but getMore",
                "commands, all rounds", "timeouts (waited a whole round)",
                "violations (a writer beside a reader)"), rows);
        report.line("Ratio read-write / exclusive, operations/s, per round: median " + Stats.format(ratios.median(), 2)
                + " (range " + Stats.format(ratios.min(), 2) + "-" + Stats.format(ratios.max(), 2) + "). An operation is"
                + " acquire + " + s.holdMicros() + " µs parked + close; the wait is from the call to the grant. Commands"
                + " are counted at both workers' drivers, the managers' background commands (session renewal) included;"
                + " getMore is the change stream (push) and is shown but not counted per operation; `find` and `aggregate` are mostly a"
                + " waiter's reads after a refused grant (the read-write lock reads its document and its holders' sessions,"
                + " the exclusive lock its document by `aggregate`), besides the change streams' openings: mongolock's own. Violations are"
                + " checked across both JVMs through a shared-memory word per name (see ReadHeavyLoad).");
        report.line("");
        report.line("One caller alone (worker A, before the rounds, after a warm cycle of each), commands of acquire / release:"
                + " read " + cycle(cycles.get("read")) + "; write " + cycle(cycles.get("write")) + "; exclusive lock "
                + cycle(cycles.get("exclusive")) + ".");
        long readCycle = cycleTotal(cycles.get("read"));
        long lockCycle = cycleTotal(cycles.get("exclusive"));
        report.target("read-write lock: an uncontended read acquire + release, the same round trips as a lock's (issue 32)",
                readCycle + " (" + cycle(cycles.get("read")) + "; the lock: " + lockCycle + ")", readCycle == lockCycle);
        long violations = totals.values().stream().mapToLong(t -> t.violations).sum();
        long errors = totals.values().stream().mapToLong(t -> t.errors).sum();
        report.target("read-heavy (" + s.readPercent() + " % reads, 2 x " + s.threads() + " threads, " + s.names()
                        + " names): read-write lock >= 2x the exclusive lock's operations/s (issue 32)",
                Stats.format(ratios.median(), 2) + "x (" + Stats.format(totals.get("rw").rates.isEmpty() ? Double.NaN
                        : new Stats(totals.get("rw").rates).median(), 0) + " against " + Stats.format(
                        new Stats(totals.get("ex").rates).median(), 0) + " operations/s)", ratios.median() >= 2.0);
        report.target("read-heavy: never a writer beside a reader (issue 32)", violations + " violations, " + errors
                + " errors", violations == 0 && errors == 0);
    }

    /** {@code 1:findAndModify/1:update} as {@code 1 (findAndModify) / 1 (update)}. */
    private static String cycle(String acquireRelease) {
        List<String> halves = new ArrayList<>();
        for (String half : acquireRelease.split("/")) {
            String[] parts = half.split(":", 2);
            halves.add(parts[0] + " (" + parts[1].replace("+", ", ") + ")");
        }
        return String.join(" / ", halves);
    }

    private static long cycleTotal(String acquireRelease) {
        long total = 0;
        for (String half : acquireRelease.split("/")) {
            total += Long.parseLong(half.split(":", 2)[0]);
        }
        return total;
    }

    /** Nearest-rank percentiles of the merged wait histogram, in ms. */
    private static String waits(long[] buckets) {
        long count = 0;
        for (long c : buckets) {
            count += c;
        }
        if (count == 0) {
            return "n/a";
        }
        return millis(buckets, count, 50) + " / " + millis(buckets, count, 99) + " / " + millis(buckets, count, 100);
    }

    private static String millis(long[] buckets, long count, double p) {
        long rank = Math.max(1, (long) Math.ceil(p / 100.0 * count));
        long seen = 0;
        for (int b = 0; b < buckets.length; b++) {
            seen += buckets[b];
            if (seen >= rank) {
                double ms = Math.exp((double) b / ReadHeavyLoad.BUCKETS_PER_E) / 1000.0;
                return Stats.format(ms, ms < 10 ? 2 : 0);
            }
        }
        return "n/a";
    }

    private static void addBuckets(long[] into, String sparse) {
        if (sparse == null || sparse.equals("-")) {
            return;
        }
        for (String pair : sparse.split(",")) {
            String[] kv = pair.split(":");
            into[Integer.parseInt(kv[0])] += Long.parseLong(kv[1]);
        }
    }
}
