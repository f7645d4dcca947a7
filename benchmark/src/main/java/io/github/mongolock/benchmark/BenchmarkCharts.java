package io.github.mongolock.benchmark;

import io.github.mongolock.benchmark.chart.ChartTitles;
import io.github.mongolock.benchmark.chart.ColumnChart;
import io.github.mongolock.benchmark.chart.Marker;
import io.github.mongolock.benchmark.chart.NumberText;
import io.github.mongolock.benchmark.chart.Palette;
import io.github.mongolock.benchmark.chart.StackedBarChart;
import io.github.mongolock.benchmark.chart.StripChart;
import io.github.mongolock.benchmark.chart.SvgCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The charts of one run, drawn from what the cases measured and nothing else: every handoff
 * sample of case 4, the grants per thread of case 7's hot lock, the commands per acquisition by
 * command of cases 1-3, 5 and 7. The cases hand their figures over as they finish; {@link #write}
 * draws the charts of the cases that ran, reads each back with the XML parser and writes it as
 * SVG. Used by the benchmark's main thread only.
 */
final class BenchmarkCharts {

    static final String HANDOFF_FILE = "benchmark-handoff.svg";
    static final String HOT_LOCK_FILE = "benchmark-hot-lock-share.svg";
    static final String COMMANDS_FILE = "benchmark-commands-per-acquisition.svg";
    /** Renders at its own size in a GitHub page without scaling (the column is about 880 px). */
    private static final int WIDTH = 720;
    /** The command kinds in a fixed order and colour, so the same command looks the same in every run. */
    private static final List<String> COMMAND_ORDER = List.of("findAndModify", "update", "aggregate", "find", "killCursors");
    private static final String GET_MORE = "getMore";

    private record Handoff(WakeUpMode mode, int holdMillis, List<Double> millis) {
    }

    private record HotLock(long[] threadsA, long[] threadsB, long timeouts, WakeUpMode mode, long millis, long waitMillis) {
    }

    private record Commands(String group, String label, Map<String, Long> counts, long acquisitions) {
    }

    private final List<Handoff> handoffs = new ArrayList<>();
    private final List<Commands> commands = new ArrayList<>();
    private HotLock hotLock;

    /** Case 4: every kept handoff time, in ms, of one wake-up mode after one hold. */
    void handoff(WakeUpMode mode, int holdMillis, List<Double> millis) {
        handoffs.add(new Handoff(mode, holdMillis, List.copyOf(millis)));
    }

    /** Case 7's hot block: grants per thread of each process, and how many calls timed out. */
    void hotLock(TurnLog log, int threads, WakeUpMode mode, long millis, long waitMillis) {
        hotLock = new HotLock(log.grantsPerThread("A", threads), log.grantsPerThread("B", threads), log.timeouts(), mode,
                millis, waitMillis);
    }

    /**
     * The commands sent for {@code acquisitions} acquisitions (acquire + close), by command name as
     * the driver reports it; a {@code getMore} (the change stream) is shown apart, not in the bar.
     */
    void commands(String group, String label, Map<String, Long> counts, long acquisitions) {
        commands.add(new Commands(group, label, Map.copyOf(counts), acquisitions));
    }

    /**
     * Draws and writes the charts whose cases ran into {@code directory}, each checked first.
     *
     * @param run what ran where, for each chart's footnote, e.g. the date, the server and the machine
     * @return the files written
     */
    List<Path> write(Path directory, String run) throws IOException {
        Map<String, String> charts = new LinkedHashMap<>();
        if (!handoffs.isEmpty()) {
            charts.put(HANDOFF_FILE, handoffChart(run));
        }
        if (hotLock != null) {
            charts.put(HOT_LOCK_FILE, hotLockChart(run));
        }
        if (!commands.isEmpty()) {
            charts.put(COMMANDS_FILE, commandsChart(run));
        }
        List<Path> written = new ArrayList<>();
        if (charts.isEmpty()) {
            return written;
        }
        Files.createDirectories(directory);
        for (Map.Entry<String, String> chart : charts.entrySet()) {
            SvgCheck.check(chart.getKey(), chart.getValue());
            Path file = directory.resolve(chart.getKey());
            Files.writeString(file, chart.getValue());
            written.add(file);
        }
        return written;
    }

    private String handoffChart(String run) {
        int perRow = handoffs.stream().mapToInt(h -> h.millis().size()).max().orElse(0);
        StripChart.Series push = new StripChart.Series("push wake-up (change stream)", Palette.BLUE, Marker.CIRCLE);
        StripChart.Series polling = new StripChart.Series("polling only (backoff)", Palette.ORANGE, Marker.DIAMOND);
        StripChart chart = new StripChart(new ChartTitles("Handoff latency between two processes: push against polling",
                "Case 4: from the holder's close() in one process to the waiter's acquire() returning in the other;"
                        + " one point per handoff, " + perRow + " per row. The waiter had been parked for the hold time,"
                        + " so after 250 ms polling's backoff has grown and push has more to win.",
                run + " Compare rows with each other, not the times with another machine."),
                "handoff latency, ms (log scale)", true, "p50 (nearest rank)", "p50 / p99, ms");
        List<Handoff> ordered = new ArrayList<>(handoffs);
        ordered.sort((x, y) -> x.holdMillis() != y.holdMillis() ? Integer.compare(x.holdMillis(), y.holdMillis())
                : x.mode().compareTo(y.mode()));
        for (Handoff handoff : ordered) {
            Stats stats = new Stats(handoff.millis());
            chart.row(new StripChart.Row("waiter parked " + handoff.holdMillis() + " ms", handoff.mode().label,
                    handoff.mode() == WakeUpMode.PUSH ? push : polling, handoff.millis(), stats.percentile(50),
                    NumberText.fixed(stats.percentile(50), 1) + " / " + NumberText.fixed(stats.percentile(99), 1)));
        }
        return chart.render(WIDTH);
    }

    private String hotLockChart(String run) {
        HotLock hot = hotLock;
        int threads = hot.threadsA().length + hot.threadsB().length;
        long grantsA = sum(hot.threadsA());
        long grantsB = sum(hot.threadsB());
        long grants = grantsA + grantsB;
        double fairShare = grants / (double) threads;
        ColumnChart chart = new ColumnChart(new ChartTitles("Hot lock: grants per thread",
                String.format(Locale.ROOT, "Case 7: 2 processes x %d threads loop acquire + close on one lock for %d s"
                                + " (%s wake-up, %d s wait): %d grants, %d acquires timed out. A fair lock gives every"
                                + " thread the same height.", hot.threadsA().length, hot.millis() / 1000, hot.mode().label,
                        hot.waitMillis() / 1000, grants, hot.timeouts()),
                run + " The shares, not the counts, carry over to another machine."),
                "thread, per worker process (one manager each)", "grants");
        chart.group(new ColumnChart.Group("worker A", grantsA + " grants (" + percent(grantsA, grants) + ")", Palette.BLUE,
                threadLabels(hot.threadsA().length), values(hot.threadsA())));
        chart.group(new ColumnChart.Group("worker B", grantsB + " grants (" + percent(grantsB, grants) + ")", Palette.ORANGE,
                threadLabels(hot.threadsB().length), values(hot.threadsB())));
        chart.reference(new ColumnChart.Reference(fairShare, "fair " + NumberText.fixed(fairShare, 1),
                "fair share: grants / " + threads));
        chart.reference(new ColumnChart.Reference(fairShare / 2, "half " + NumberText.fixed(fairShare / 2, 1),
                "half the fair share (target: no thread below)"));
        return chart.render(WIDTH, 220);
    }

    private String commandsChart(String run) {
        List<String> names = new ArrayList<>(COMMAND_ORDER);
        commands.forEach(c -> c.counts().keySet().stream()
                .filter(name -> !name.equals(GET_MORE) && !names.contains(name)).sorted().forEach(names::add));
        List<StackedBarChart.Category> categories = IntStream.range(0, names.size())
                .mapToObj(i -> new StackedBarChart.Category(names.get(i), Palette.category(i))).toList();
        StackedBarChart chart = new StackedBarChart(new ChartTitles("Commands per acquisition, by command",
                "Each acquisition is acquire + close; commands counted at the clients' drivers. The change stream's"
                        + " getMore (push wake-up) is not in the bar but written after it: the stand-in answers it at"
                        + " once, real MongoDB waits for an event.",
                run + " Counts depend less on the machine than times do, but contention does."),
                "commands per acquisition (getMore apart)", categories);
        for (Commands c : commands) {
            Map<String, Double> segments = new LinkedHashMap<>();
            c.counts().forEach((name, count) -> {
                if (!name.equals(GET_MORE) && count > 0) {
                    segments.put(name, count / (double) Math.max(c.acquisitions(), 1));
                }
            });
            long getMore = c.counts().getOrDefault(GET_MORE, 0L);
            String note = getMore == 0 ? "" : "+ " + NumberText.fixed(getMore / (double) Math.max(c.acquisitions(), 1), 2)
                    + " getMore";
            chart.row(new StackedBarChart.Row(c.group(), c.label(), segments, note));
        }
        chart.reference(new StackedBarChart.Reference(2, "2: one acquire + one release, the least a cycle sends"));
        return chart.render(WIDTH);
    }

    private static List<String> threadLabels(int count) {
        return IntStream.rangeClosed(1, count).mapToObj(String::valueOf).toList();
    }

    private static List<Double> values(long[] counts) {
        return Arrays.stream(counts).mapToDouble(c -> c).boxed().toList();
    }

    private static long sum(long[] counts) {
        return Arrays.stream(counts).sum();
    }

    private static String percent(long part, long whole) {
        return String.format(Locale.ROOT, "%.1f %%", 100.0 * part / Math.max(whole, 1));
    }
}
