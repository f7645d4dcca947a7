package io.github.mongolock.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Case 7: how one hot lock is shared between two processes and their threads, what a grant costs,
 * and the quick start's pattern (a node releasing and taking the lock again after a short pause).
 * Everything is measured in one block of seconds so the ratios compare like with like: the
 * single-thread uncontended cycle rate that the hot lock's throughput is divided by is measured on
 * the same worker, with the same kind of manager, right before and right after the hot block.
 */
final class FairnessCase {

    /**
     * @param mode         the wake-up of every manager in the case (push, the default manager, unless asked)
     * @param threads      per process on the hot lock
     * @param millis       length of the hot block
     * @param waitMillis   each acquire's wait: a call that waits this long times out
     * @param soloMillis   uncontended measurement before and again after the hot block, each in 1 s slices
     * @param quickMillis  length of the quick-start block
     * @param quickHoldMillis  how long a quick-start node holds the lock (400 ms in the demo; shorter
     *                         here to get more turns per second)
     * @param quickPauseMillis the quick start's "give the other node a fair chance" pause after each release
     */
    record Settings(WakeUpMode mode, int threads, long millis, long waitMillis, long soloMillis, long quickMillis,
                    long quickHoldMillis, long quickPauseMillis) {
    }

    /** Warm-ups, not kept: the hot lock's and the uncontended path's. */
    private static final long WARM_UP_MILLIS = 3_000;
    private static final long SOLO_WARM_UP_MILLIS = 2_000;
    private static final List<String> PROCESSES = List.of("A", "B");

    /** What one TURNS block gave: the merged log and the commands both workers' drivers sent. */
    private record Block(TurnLog log, long startAt, long endAt, Map<String, Long> commands, Map<String, Double> meanMillis,
                         CpuAccount.Split cpu) {

        long lockCommands() {
            return commands.values().stream().mapToLong(Long::longValue).sum() - commands.getOrDefault("getMore", 0L);
        }

        double meanMillis(String command) {
            return meanMillis.getOrDefault(command, Double.NaN);
        }

        /** Grants per second in the block's window (calls still waiting at its end are not counted). */
        double rate() {
            return log.grantsBefore(endAt) / ((endAt - startAt) / 1e9);
        }
    }

    private final Report report;
    private final BenchmarkCharts charts;
    private final Settings settings;
    private final Runnable clearStandInOplog;

    FairnessCase(Report report, BenchmarkCharts charts, Settings settings, Runnable clearStandInOplog) {
        this.report = report;
        this.charts = charts;
        this.settings = settings;
        this.clearStandInOplog = clearStandInOplog;
    }

    void run(ChildJvm a, ChildJvm b) {
        List<ChildJvm> both = List.of(a, b);
        int contenders = 2 * settings.threads();
        long started = System.nanoTime();
        System.out.println("Case 7: fairness, 2 processes x " + settings.threads() + " threads on one lock for "
                + settings.millis() + " ms (" + settings.mode().label + "), uncontended " + settings.soloMillis()
                + " ms before and after, quick start " + settings.quickMillis() + " ms");
        // Not kept: JIT (the stand-in's too: alone, this case starts it cold), connection pools, the
        // collection's first documents; both paths, the contended and the uncontended one. On the
        // loaded 2-core machine the first seconds of fresh JVMs ran at a fraction of the later rate.
        turns(both, "fair-warm-up", settings.threads(), WARM_UP_MILLIS, 0, 0, false);
        turns(List.of(a), "fair-solo", 1, SOLO_WARM_UP_MILLIS, 0, 0, false);
        List<Block> soloBefore = solo(a);
        Block hot = turns(both, "fair-hot", settings.threads(), settings.millis(), 0, 0, false);
        List<Block> soloAfter = solo(a);
        Block quick = turns(both, "quick-start", 1, settings.quickMillis(), settings.quickHoldMillis(),
                settings.quickPauseMillis(), true);
        double wallSeconds = (System.nanoTime() - started) / 1e9;

        TurnLog log = hot.log();
        long grants = log.grants().size();
        long windowGrants = log.grantsBefore(hot.endAt());
        double rate = hot.rate();
        List<Block> solo = new ArrayList<>(soloBefore);
        solo.addAll(soloAfter);
        double soloRate = rates(solo).median();
        double vsSolo = rate / soloRate;
        double millisPerGrant = settings.millis() / (double) Math.max(windowGrants, 1);
        double p99Bound = 2.0 * contenders * millisPerGrant;
        Stats waits = log.waitsMillis();
        double fairShare = grants / (double) contenders;
        List<Long> perThread = new ArrayList<>();
        StringJoiner perThreadText = new StringJoiner("; ");
        for (String process : PROCESSES) {
            StringJoiner counts = new StringJoiner(" ");
            for (long count : log.grantsPerThread(process, settings.threads())) {
                perThread.add(count);
                counts.add(String.valueOf(count));
            }
            perThreadText.add(process + ": " + counts);
        }
        long fewest = perThread.stream().mapToLong(Long::longValue).min().orElse(0);
        long most = perThread.stream().mapToLong(Long::longValue).max().orElse(0);
        double fewestShare = fewest / fairShare;
        double[] processShare = {share(log.grants("A"), grants), share(log.grants("B"), grants)};
        double commandsPerGrant = hot.lockCommands() / (double) Math.max(grants, 1);
        double getMorePerGrant = hot.commands().getOrDefault("getMore", 0L) / (double) Math.max(grants, 1);
        TurnLog.Streak streak = log.longestStreak();
        charts.hotLock(log, settings.threads(), settings.mode(), settings.millis(), settings.waitMillis());
        charts.commands("Case 7: one hot lock, 2 processes x " + settings.threads() + " threads, " + settings.millis()
                + " ms", "hot lock, " + settings.mode().label, hot.commands(), grants);

        report.heading("7. Fairness: one hot lock, 2 processes x " + settings.threads() + " threads, " + settings.mode().label
                + " wake-up, " + settings.millis() + " ms, " + settings.waitMillis() / 1000 + " s wait; and the quick start's pattern");
        report.table(List.of("measure", "value"), List.of(
                List.of("grants (calls started in the window, all ran to their end)", grants + " (" + windowGrants
                        + " returned within the " + settings.millis() + " ms window)"),
                List.of("share of grants A / B", percent(processShare[0]) + " / " + percent(processShare[1])),
                List.of("grants per thread, x the fair share (grants / " + contenders + " = " + Stats.format(fairShare, 1) + ")",
                        "fewest " + fewest + " (" + Stats.format(fewestShare, 2) + "x), most " + most + " ("
                                + Stats.format(most / fairShare, 2) + "x); " + perThreadText),
                List.of("acquire wait p50 / p99 / max", Stats.format(waits.percentile(50), 1) + " / "
                        + Stats.format(waits.percentile(99), 1) + " / " + Stats.format(waits.max(), 1) + " ms over "
                        + waits.count() + " calls"),
                List.of("p99 bound: 2 x contenders x mean time per grant", "2 x " + contenders + " x "
                        + Stats.format(millisPerGrant, 2) + " ms = " + Stats.format(p99Bound, 1) + " ms"),
                List.of("acquires timed out (waited " + settings.waitMillis() / 1000 + " s)", String.valueOf(log.timeouts())),
                List.of("commands per acquisition (without getMore)", Stats.format(commandsPerGrant, 2) + " "
                        + perGrant(hot.commands(), grants)),
                List.of("change-stream getMore per acquisition", Stats.format(getMorePerGrant, 2)),
                List.of("hot-lock throughput", Stats.format(rate, 0) + " grants/s"),
                List.of("uncontended cycle rate, 1 thread of A, 1 s slices: median of all; before; after",
                        Stats.format(soloRate, 0) + " cycles/s; " + range(rates(soloBefore)) + "; " + range(rates(soloAfter))),
                List.of("hot-lock throughput / uncontended cycle rate", Stats.format(vsSolo, 3)),
                List.of("share of all " + Runtime.getRuntime().availableProcessors() + " CPUs' time taken by other"
                        + " jobs: uncontended slices before; hot block; after", othersShare(soloBefore) + "; "
                        + Stats.format(100 * hot.cpu().others(), 0) + "% (this benchmark's JVMs "
                        + Stats.format(100 * hot.cpu().own(), 0) + "%); " + othersShare(soloAfter)),
                List.of("longest run of grants to one process", streak.length() + " (" + streak.process() + "), "
                        + streakWhen(streak, hot) + "; " + log.processSwitches() + " switches between processes in "
                        + grants + " grants")));
        report.line(whereTheTimeGoes(hot, solo, soloRate, millisPerGrant, grants));
        if (hot.cpu().others() >= 0.5) {
            // Seen here: other jobs took 87-93 % of the CPUs for a whole run; its figures then say
            // more about them than about the lock.
            report.line("");
            report.line("**Other jobs took " + percent(hot.cpu().others()) + " of the CPUs during the hot block**: its"
                    + " absolute figures measure them as much as the lock; rerun on a quieter machine before comparing.");
        }
        report.line("");
        quickStart(quick);
        report.line("");
        report.line(String.format(Locale.ROOT, "Case 7 took %.0f s (workers already started): warm-up %d s + %d s, %d ms"
                + " uncontended twice, the hot block %d ms plus the calls still waiting at its end, the quick start %d ms;"
                + " each block also waits 0.5 s for its common start.",
                wallSeconds, WARM_UP_MILLIS / 1000, SOLO_WARM_UP_MILLIS / 1000, settings.soloMillis(), settings.millis(),
                settings.quickMillis()));

        String hotLock = "hot lock (2 x " + settings.threads() + " threads, " + settings.waitMillis() / 1000 + " s wait): ";
        report.target(hotLock + "no acquire times out", log.timeouts() + " timed out of " + waits.count() + " calls",
                log.timeouts() == 0);
        double worstShare = Math.max(Math.abs(processShare[0] - 0.5), Math.abs(processShare[1] - 0.5));
        report.target(hotLock + "each process gets 45-55% of grants", log.grants("A") + " / " + log.grants("B") + " = "
                + percent(processShare[0]) + " / " + percent(processShare[1]) + (worstShare > 0.05 ? String.format(Locale.ROOT,
                " (%.2f points outside)", 100 * (worstShare - 0.05)) : ""), worstShare <= 0.05);
        report.target(hotLock + "no thread under half its fair share", "fewest " + fewest + " grants = "
                + Stats.format(fewestShare, 2) + "x the fair share " + Stats.format(fairShare, 1), fewestShare >= 0.5);
        report.target(hotLock + "p99 wait <= 2 x contenders x mean time per grant", "p99 "
                + Stats.format(waits.percentile(99), 1) + " ms, bound " + Stats.format(p99Bound, 1) + " ms ("
                + Stats.format(waits.percentile(99) / p99Bound, 2) + "x the bound)", waits.percentile(99) <= p99Bound);
        report.target(hotLock + "<= 3.0 commands per acquisition (getMore apart)", Stats.format(commandsPerGrant, 2)
                + " (" + Stats.format(commandsPerGrant / 3.0, 2) + "x the target; getMore " + Stats.format(getMorePerGrant, 2)
                + " more)", commandsPerGrant <= 3.0);
        report.target("hot-lock throughput >= 0.5x the single-thread uncontended cycle rate", Stats.format(vsSolo, 3)
                + "x (" + Stats.format(rate, 0) + " grants/s against " + Stats.format(soloRate, 0) + " cycles/s)", vsSolo >= 0.5);
    }

    /**
     * Splits the mean time per grant into the commands sent for it, priced at what a command costs
     * on an uncontended single thread in the same run, and the rest: time in which the lock sat
     * free or nobody's command ran (waiters learning of a release late). When the first part
     * explains nearly all of it, the hot lock is bound by the commands it sends, not by waiting.
     */
    private String whereTheTimeGoes(Block hot, List<Block> solo, double soloRate, double millisPerGrant, long grants) {
        double soloCycleMillis = 1000.0 / soloRate;
        double soloCommandsPerCycle = solo.stream().mapToLong(FairnessCase::allCommands).sum()
                / (double) Math.max(solo.stream().mapToLong(block -> block.log().grants().size()).sum(), 1);
        double millisPerCommand = soloCycleMillis / soloCommandsPerCycle;
        double commandsPerGrant = allCommands(hot) / (double) Math.max(grants, 1);
        double commandMillis = commandsPerGrant * millisPerCommand;
        StringJoiner means = new StringJoiner(", ");
        hot.commands().forEach((command, count) -> means.add(command + " " + Stats.format(hot.meanMillis(command), 2) + " ms"));
        String split = commandMillis >= millisPerGrant
                ? "more than the time per grant (" + percent(commandMillis / millisPerGrant) + "): the callers' commands"
                + " are served side by side, and the hot lock is bound by the commands it sends, not by idle time"
                : percent(commandMillis / millisPerGrant) + " of the time per grant; the other "
                + Stats.format(millisPerGrant - commandMillis, 2) + " ms are time in which the lock's commands did not"
                + " keep the machine busy (waiters learning of a release late: a pushed notice, a poll's backoff)";
        return String.format(Locale.ROOT, "Where a grant's time goes: %s ms per grant on the hot lock, against %s ms per"
                        + " uncontended cycle on one thread (%s commands, so %s ms per command on this machine, client"
                        + " and server together). The hot lock sends %s commands per grant, getMore included; at the"
                        + " uncontended price these alone take %s ms, %s. Under this load each round trip takes longer"
                        + " than uncontended because the contenders' commands queue at the stand-in and for the cores"
                        + " (mean, driver-measured send to reply, failed ones included: %s).",
                Stats.format(millisPerGrant, 2), Stats.format(soloCycleMillis, 2), Stats.format(soloCommandsPerCycle, 2),
                Stats.format(millisPerCommand, 2), Stats.format(commandsPerGrant, 2), Stats.format(commandMillis, 2),
                split, means);
    }

    /**
     * One thread of worker A cycling on a name nobody else uses, in 1 s slices: on a shared machine a
     * slice that another job slows down is one of several, and the median leaves it out.
     */
    private List<Block> solo(ChildJvm a) {
        List<Block> slices = new ArrayList<>();
        for (long done = 0; done < Math.max(settings.soloMillis(), 1_000); done += 1_000) {
            slices.add(turns(List.of(a), "fair-solo", 1, 1_000, 0, 0, false));
        }
        return slices;
    }

    /**
     * When the longest run was, within the block, and whether the other process's callers waited through it: a
     * long run with none of them waiting is the other process not asking (late start, a stall between calls).
     */
    private static String streakWhen(TurnLog.Streak streak, Block block) {
        if (streak.length() == 0) {
            return "no grants";
        }
        StringJoiner firstCalls = new StringJoiner(" / ");
        for (String process : PROCESSES) {
            firstCalls.add(Stats.format((block.log().firstCallOf(process) - block.startAt()) / 1e6, 1));
        }
        return "from " + Stats.format((streak.firstReturnedAt() - block.startAt()) / 1e6, 0) + " to "
                + Stats.format((streak.lastReturnedAt() - block.startAt()) / 1e6, 0) + " ms into the block, with "
                + block.log().othersWaitingThroughout(streak) + " calls of the other process waiting through all of it"
                + " (first call of A / B: " + firstCalls + " ms into the block)";
    }

    /** The other jobs' CPU share over a series of slices, in %: median (range). */
    private static String othersShare(List<Block> slices) {
        Stats others = new Stats(slices.stream().map(slice -> 100 * slice.cpu().others()).toList());
        return Stats.format(others.median(), 0) + "% (" + Stats.format(others.min(), 0) + "-"
                + Stats.format(others.max(), 0) + "%)";
    }

    private static Stats rates(List<Block> blocks) {
        return new Stats(blocks.stream().map(Block::rate).toList());
    }

    private static String range(Stats stats) {
        return Stats.format(stats.median(), 0) + " (" + Stats.format(stats.min(), 0) + "-" + Stats.format(stats.max(), 0) + ")";
    }

    private static long allCommands(Block block) {
        return block.commands().values().stream().mapToLong(Long::longValue).sum();
    }

    private void quickStart(Block quick) {
        TurnLog log = quick.log();
        long grants = log.grants().size();
        long unblocked = settings.quickMillis() / Math.max(settings.quickHoldMillis() + settings.quickPauseMillis(), 1);
        report.line("The quick start's pattern (`examples/quickstart`), one node per process, one thread each, "
                + settings.quickMillis() + " ms: `tryAcquire`, and when busy `acquire` with a "
                + settings.waitMillis() / 1000 + " s wait; hold " + settings.quickHoldMillis() + " ms; close; pause "
                + settings.quickPauseMillis() + " ms; again. A node never kept waiting would get about " + unblocked
                + " turns.");
        report.line("");
        List<List<String>> rows = new ArrayList<>();
        for (String process : PROCESSES) {
            Stats waited = log.waitedGrantsMillis(process);
            rows.add(List.of("node " + process, String.valueOf(log.grants(process)), percent(share(log.grants(process), grants)),
                    String.valueOf(log.grantsAtOnce(process)), String.valueOf(waited.count()),
                    Stats.format(waited.percentile(50), 1) + " / " + Stats.format(waited.max(), 1)));
        }
        report.table(List.of("node", "grants", "share", "taken at once (tryAcquire)", "taken after waiting",
                "wait when it waited, p50 / max ms"), rows);
        TurnLog.Streak streak = log.longestStreak();
        report.line("Longest run of consecutive grants to one node: " + streak.length() + " (node " + streak.process()
                + "); " + log.processSwitches() + " switches between nodes in " + grants + " grants; " + log.timeouts()
                + " acquires timed out.");
    }

    /** Runs one TURNS block on the workers given (labelled A, B in order) and resets their managers after it. */
    private Block turns(List<ChildJvm> workers, String name, int threads, long millis, long holdMillis, long pauseMillis,
                        boolean tryFirst) {
        clearStandInOplog.run();
        long startAt = System.nanoTime() + 500_000_000L;
        TurnTaking.Plan plan = new TurnTaking.Plan(name, threads, millis, settings.waitMillis(), holdMillis, pauseMillis,
                tryFirst, startAt);
        CpuAccount.Snapshot cpuBefore = CpuAccount.now(ChildJvm.benchmarkPids());
        workers.forEach(worker -> worker.send(plan.command(settings.mode())));
        Duration timeout = Duration.ofMillis(millis + settings.waitMillis() + 60_000);
        List<TurnLog.Turn> turns = new ArrayList<>();
        Map<String, Long> commands = new HashMap<>();
        Map<String, Double> weightedMillis = new HashMap<>();
        for (int w = 0; w < workers.size(); w++) {
            Map<String, String> result = Benchmark.keyValues(workers.get(w).expect(Protocol.RESULT, timeout));
            turns.addAll(TurnLog.parse(PROCESSES.get(w), result.get("turns")));
            Map<String, Long> counts = new HashMap<>();
            Benchmark.addCommands(counts, result.get("commands"));
            Map<String, Double> means = doubles(result.get("commandMeanMs"));
            counts.forEach((command, count) -> {
                commands.merge(command, count, Long::sum);
                double mean = means.getOrDefault(command, Double.NaN);
                if (!Double.isNaN(mean)) {
                    weightedMillis.merge(command, mean * count, Double::sum);
                }
            });
        }
        CpuAccount.Split cpu = CpuAccount.between(cpuBefore, CpuAccount.now(ChildJvm.benchmarkPids()));
        workers.forEach(worker -> Benchmark.reset(worker, settings.mode()));
        Map<String, Double> meanMillis = new LinkedHashMap<>();
        weightedMillis.forEach((command, total) -> meanMillis.put(command, total / commands.get(command)));
        Block block = new Block(new TurnLog(turns), startAt, startAt + millis * 1_000_000L, new TreeMap<>(commands),
                meanMillis, cpu);
        System.out.printf("  %s: %d grants, %.0f grants/s, %d timed out; CPU: %s%n", name, block.log().grants().size(),
                block.rate(), block.log().timeouts(), cpu.describe());
        return block;
    }

    /** Parses {@code {name=1.5,other=NaN}}. */
    private static Map<String, Double> doubles(String rendered) {
        Map<String, Double> values = new HashMap<>();
        String body = rendered == null ? "" : rendered.substring(1, rendered.length() - 1);
        if (!body.isEmpty()) {
            for (String pair : body.split(",")) {
                String[] kv = pair.split("=");
                values.put(kv[0], Double.parseDouble(kv[1]));
            }
        }
        return values;
    }

    private static String perGrant(Map<String, Long> commands, long grants) {
        StringJoiner parts = new StringJoiner(", ", "(", ")");
        commands.forEach((command, count) -> {
            if (!command.equals("getMore")) {
                parts.add(command + " " + Stats.format(count / (double) Math.max(grants, 1), 2));
            }
        });
        return parts.toString();
    }

    private static double share(long part, long whole) {
        return part / (double) Math.max(whole, 1);
    }

    private static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * fraction);
    }
}
