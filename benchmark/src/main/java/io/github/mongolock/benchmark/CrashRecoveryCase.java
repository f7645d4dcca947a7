package io.github.mongolock.benchmark;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.gt;
import static com.mongodb.client.model.Filters.gte;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.regex;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.bson.Document;

/**
 * Case 8 (issue 20): crash recovery at scale. A manager holding N locks ({@link CrashHolder}, a JVM of its own) is
 * killed with SIGKILL; a second manager ({@link CrashWaiter}, warmed up and ready before the kill) is told to go
 * right after, and takes every lock: how long until it holds them all, and the commands and documents it spent.
 * Each shape runs once per library build (an earlier one given by {@code before-jar}, then the one under test),
 * each on a collection of its own, so every run starts from the same state.
 */
final class CrashRecoveryCase {

    /**
     * @param locks        held by the killed manager
     * @param leaseMillis  the killed manager's lease (what the survivor must watch)
     * @param shapes       {@code scan} and/or {@code waits} (see {@link CrashWaiter})
     * @param threads      the survivor's threads in the {@code waits} shape
     * @param budgetMillis per shape: the survivor stops trying after this long
     */
    record Settings(int locks, long leaseMillis, List<String> shapes, int threads, Map<String, Long> budgetMillis) {
    }

    /** @param holderStartToGoMillis from the killed manager's start (before its first grant) to the survivor's start */
    private record Run(String shape, LibraryBuild build, Map<String, String> holder, long heldInStore,
                       Map<String, String> waiter, String lateRenewals, long holderStartToGoMillis) {
    }

    private final Report report;
    private final String uri;
    private final String database;
    private final boolean standIn;
    private final Settings settings;
    private final List<ChildJvm> children;

    CrashRecoveryCase(Report report, String uri, String database, boolean standIn, Settings settings, List<ChildJvm> children) {
        this.report = report;
        this.uri = uri;
        this.database = database;
        this.standIn = standIn;
        this.settings = settings;
        this.children = children;
    }

    void run(List<LibraryBuild> builds) {
        List<Run> runs = new ArrayList<>();
        try (MongoClient client = MongoClients.create(uri)) {
            for (String shape : settings.shapes()) {
                for (LibraryBuild build : builds) {
                    runs.add(runOne(client, shape, build, builds.indexOf(build)));
                }
            }
        }
        report.heading("8. Crash recovery: a manager holding " + settings.locks() + " locks killed (SIGKILL), another takes"
                + " them all (lease " + settings.leaseMillis() + " ms)");
        List<List<String>> rows = new ArrayList<>();
        for (Run run : runs) {
            Map<String, String> w = run.waiter();
            long held = Long.parseLong(w.get("held"));
            long commands = Long.parseLong(w.get("totalCommands"));
            long budget = settings.budgetMillis().get(run.shape());
            rows.add(List.of(shapeLabel(run.shape()), run.build().label(),
                    run.holder().get("acquireMs") + " ms; " + run.heldInStore() + " held in the store at the kill",
                    Long.parseLong(w.get("allHeldMs")) >= 0 ? seconds(w.get("allHeldMs")) + " s"
                            : "not within " + budget / 1000 + " s: " + held + " held" + (held == 0 ? ""
                            : " (at that rate all " + settings.locks() + " in ~" + duration(budget * settings.locks() / held) + ")"),
                    seconds(w.get("firstGrantMs")) + " / " + seconds(w.get("halfHeldMs")) + " s",
                    "scan".equals(run.shape()) ? w.get("passes") : "-",
                    commands + " (" + Stats.format(held == 0 ? Double.NaN : (double) commands / held, 1) + " per lock taken)",
                    w.get("commands").replace("=", ": "), w.get("documentsWritten"), w.get("sessionEnds"),
                    run.lateRenewals()));
        }
        report.table(List.of("shape", "library", "killed manager: time to acquire all; locks held", "time until the survivor"
                        + " holds all", "first grant / half held", "passes", "commands spent", "commands by name",
                "documents written", "session ends sent", "the killed manager's renewals landing after the kill"), rows);
        report.line("Times are from the survivor's start, sent right after the killed JVM was gone. Commands and"
                + " documents written (from the server's answers) are the survivor's, from its start until it held"
                + " all or gave up. Shapes: `scan` = one thread, `tryAcquire` of every name not held yet, pass after"
                + " pass (at most one pass per lease/5); `waits` = " + settings.threads() + " threads, `acquire(name,"
                + " wait)` of the names in order, the budget left as the wait. The survivor's own lease is an hour"
                + " (it renews nothing during the run). The last column (stand-in only, read from its oplog): renewal"
                + " writes of the killed manager that the server applied after the kill (it finishes a command whose"
                + " client is gone).");
        long bucket = settings.leaseMillis() / 4;
        long fastPath = settings.leaseMillis() * 103 / 100 + Math.max(60_000, settings.leaseMillis());
        List<List<String>> timeline = new ArrayList<>();
        for (Run run : runs) {
            long[] grants = grantMillis(run.waiter().get("grantMillis"));
            // Every write of the killed manager came after its start, and a later renewal only puts the fast path off.
            long noFastPathUntil = fastPath - run.holderStartToGoMillis();
            long beforeFastPath = java.util.Arrays.stream(grants).filter(t -> t < noFastPathUntil).count();
            java.util.TreeMap<Long, Long> perBucket = new java.util.TreeMap<>();
            for (long t : grants) {
                perBucket.merge(t / bucket, 1L, Long::sum);
            }
            StringBuilder spread = new StringBuilder();
            int decimals = bucket < 10_000 ? 1 : 0;
            perBucket.forEach((b, count) -> spread.append(spread.length() == 0 ? "" : "; ")
                    .append(Stats.format(b * bucket / 1000.0, decimals)).append("-")
                    .append(Stats.format((b + 1) * bucket / 1000.0, decimals)).append(" s: ").append(count));
            timeline.add(List.of(shapeLabel(run.shape()), run.build().label(), beforeFastPath + " (within "
                    + Stats.format(noFastPathUntil / 1000.0, 0) + " s)", spread.toString()));
        }
        report.line("");
        report.table(List.of("shape", "library", "granted before the fast path could take any lock",
                "grants per " + Stats.format(bucket / 1000.0, bucket < 10_000 ? 2 : 0) + " s since the survivor's start"
                        + " (empty spans left out)"), timeline);
        report.line("The fast path (the database's `$$NOW` against the last `renewedAt` of the lock, or of its session;"
                + " on a replica set and the stand-in, never behind mongos) takes a lock at once once that is lease + 3 % +"
                + " max(1 min, lease) = " + Stats.format(fastPath / 1000.0, 0) + " s old, in either protocol. Nothing"
                + " the killed manager wrote is older than its start, so until " + Stats.format(fastPath / 1000.0, 0)
                + " s after it (the survivor's time in brackets) a lock was taken after a watch of its own, or, with"
                + " sessions, because its session was ended.");
        for (Run run : runs) {
            if (run.build().label().equals("under test") && "scan".equals(run.shape())) {
                long ends = Long.parseLong(run.waiter().get("sessionEnds"));
                report.target("crash recovery (issue 20): the survivor ends the dead manager's session once, then takes"
                        + " the other locks without watching them", ends + " session end(s); all held: "
                        + (Long.parseLong(run.waiter().get("allHeldMs")) >= 0), ends == 1
                        && Long.parseLong(run.waiter().get("allHeldMs")) >= 0);
            }
        }
    }

    private Run runOne(MongoClient client, String shape, LibraryBuild build, int index) {
        String collection = "crash_" + shape + "_" + index;
        long budget = settings.budgetMillis().get(shape);
        System.out.println("Case 8: " + shape + ", " + build.label() + ": " + settings.locks() + " locks, lease "
                + settings.leaseMillis() + " ms, budget " + budget + " ms");
        String suffix = "-" + shape + "-" + index;
        ChildJvm holder = ChildJvm.start("crash-holder" + suffix, List.of("-Xmx512m", "-XX:+UseSerialGC"), build.classpath(),
                CrashHolder.class, uri, database, collection, String.valueOf(settings.locks()),
                String.valueOf(settings.leaseMillis()));
        children.add(holder);
        ChildJvm waiter = ChildJvm.start("crash-waiter" + suffix, List.of("-Xmx512m"), build.classpath(), CrashWaiter.class,
                uri, database, collection, String.valueOf(settings.locks()), String.valueOf(settings.leaseMillis()), shape,
                String.valueOf(settings.threads()), String.valueOf(budget));
        children.add(waiter);
        Map<String, String> held = Benchmark.keyValues(holder.expect(Protocol.READY, Duration.ofMinutes(30)));
        long readyAt = System.nanoTime();
        waiter.expect(Protocol.READY, Duration.ofMinutes(2));
        long heldInStore = client.getDatabase(database).getCollection(collection)
                .countDocuments(and(gt("holds", 0), regex("owner", "^crash-holder:")));
        long killedAtMillis = System.currentTimeMillis();
        holder.kill();
        waiter.send("GO");
        long holderStartToGo = Long.parseLong(held.get("acquireMs")) + (System.nanoTime() - readyAt) / 1_000_000;
        Map<String, String> result = Benchmark.keyValues(waiter.expect(Protocol.RESULT, Duration.ofMillis(budget)
                .plus(Duration.ofMinutes(10))));
        waiter.close();
        Map<String, String> shown = new java.util.LinkedHashMap<>(result);
        shown.remove("grantMillis");
        System.out.printf(Locale.ROOT, "  %s, %s: %s%n", shape, build.label(), shown);
        return new Run(shape, build, held, heldInStore, result, lateRenewals(client, collection, killedAtMillis),
                holderStartToGo);
    }

    /**
     * Stand-in only: renewal writes ({@code $inc: {beat}} without {@code $set}; the survivor renews nothing) to the
     * collection that the server applied after the kill, read from its oplog.
     */
    private String lateRenewals(MongoClient client, String collection, long killedAtMillis) {
        if (!standIn) {
            return "-";
        }
        long count = 0;
        long lastMillis = -1;
        for (Document entry : client.getDatabase("local").getCollection("oplog.rs")
                .find(and(eq("ns", database + "." + collection), eq("op", "u"), gte("wall", new Date(killedAtMillis))))) {
            if (entry.get("o") instanceof Document update && update.get("$inc") instanceof Document inc
                    && inc.containsKey("beat") && !update.containsKey("$set") && entry.get("wall") instanceof Date wall) {
                count++;
                lastMillis = Math.max(lastMillis, wall.getTime() - killedAtMillis);
            }
        }
        return count == 0 ? "none" : count + " documents, the last " + Stats.format(lastMillis / 1000.0, 1) + " s after the kill";
    }

    private static String duration(long millis) {
        return millis >= 3_600_000 ? Stats.format(millis / 3_600_000.0, 1) + " h" : Stats.format(millis / 60_000.0, 1) + " min";
    }

    private static long[] grantMillis(String list) {
        return list == null || list.isEmpty() ? new long[0]
                : java.util.Arrays.stream(list.split(",")).mapToLong(Long::parseLong).toArray();
    }

    private static String shapeLabel(String shape) {
        return switch (shape) {
            case "scan" -> "scan (tryAcquire passes)";
            case "waits" -> "waits (acquire with a wait)";
            default -> shape;
        };
    }

    private static String seconds(String millis) {
        long value = Long.parseLong(millis);
        return value < 0 ? "-" : Stats.format(value / 1000.0, 1);
    }
}
