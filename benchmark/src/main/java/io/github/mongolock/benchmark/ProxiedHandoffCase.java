package io.github.mongolock.benchmark;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Case 4 (handoff across two processes) run directly against the stand-in and through
 * {@link AwaitingGetMoreProxy}, side by side in one run ({@code cases=handoff proxy=pass,await}): how much
 * of the push hand-off latency, and of the change stream's traffic, comes from the stand-in answering
 * every change-stream getMore at once.
 *
 * <p>Each route (direct; {@code pass}: through the proxy holding nothing, the hop alone; {@code await}:
 * through the proxy holding empty getMores as a real server does) has its own pair of worker JVMs, on
 * collections of its own, created before the first block. The blocks are case 4's, with its code
 * ({@link Benchmark#handoffsKeepingManagers}): holds of 10 and 250 ms, push and polling, the first two
 * handoffs of a block not kept, fresh managers after each block, the stand-in's oplog emptied before
 * each; routes and modes are interleaved in 4 rounds, their order rotating. Per block it also reads
 * both workers' command counts (all commands of both managers of that mode, the block's two unkept
 * handoffs included) and, through a proxy, what the proxy did. At the end, per route, case 4's idle
 * measurement: getMore per second while both push feeds are open and nobody waits. No chart is drawn.
 */
final class ProxiedHandoffCase {

    /** {@code proxy=pass,await} (the routes besides direct), {@code handoffs=40}. */
    record Settings(List<String> proxies, int handoffs, int rounds, List<Integer> holds) {
        static Settings of(Map<String, String> options) {
            List<String> proxies = List.of(options.get("proxy").split(","));
            for (String proxy : proxies) {
                if (!proxy.equals("pass") && !proxy.equals("await")) {
                    throw new IllegalArgumentException("proxy=" + options.get("proxy") + ": use await, pass or pass,await");
                }
            }
            return new Settings(proxies, Integer.parseInt(options.getOrDefault("handoffs", "40")), 4, List.of(10, 250));
        }
    }

    /** One way to the stand-in, with its own pair of workers; {@code proxy} is null for the direct route. */
    private record Route(String label, AwaitingGetMoreProxy proxy, ChildJvm a, ChildJvm b) {
    }

    /** What one (route, mode, hold) collected over its blocks. */
    private static final class Cell {
        final List<Double> latencies = new ArrayList<>();
        final List<Double> attempts = new ArrayList<>();
        final Map<String, Long> commands = new HashMap<>();
        long handoffsCounted;
        double seconds;
        long held;
        long resent;
        long endedByAwait;
    }

    private final Report report;
    private final Settings settings;
    private final Runnable clearOplog;
    private final BiFunction<String, String, List<ChildJvm>> startWorkers;

    /**
     * @param startWorkers (uri, collection prefix) to a started pair of workers, ended with the section
     */
    ProxiedHandoffCase(Report report, Settings settings, Runnable clearOplog,
                       BiFunction<String, String, List<ChildJvm>> startWorkers) {
        this.report = report;
        this.settings = settings;
        this.clearOplog = clearOplog;
        this.startWorkers = startWorkers;
    }

    void run(String host, int port) throws IOException, InterruptedException {
        List<AwaitingGetMoreProxy> proxies = new ArrayList<>();
        try {
            List<Route> routes = new ArrayList<>();
            routes.add(route("direct", null, "mongodb://" + host + ":" + port));
            for (String kind : settings.proxies()) {
                AwaitingGetMoreProxy proxy = AwaitingGetMoreProxy.start(host, port, kind.equals("await"), 256);
                proxies.add(proxy);
                routes.add(route(kind.equals("await") ? "awaiting proxy" : "pass-through proxy", proxy, proxy.uri()));
            }
            measure(routes);
        } finally {
            proxies.forEach(AwaitingGetMoreProxy::close);
        }
    }

    private Route route(String label, AwaitingGetMoreProxy proxy, String uri) {
        List<ChildJvm> workers = startWorkers.apply(uri, "handoff_" + label.split(" ")[0].replace('-', '_'));
        return new Route(label, proxy, workers.get(0), workers.get(1));
    }

    private void measure(List<Route> routes) throws InterruptedException {
        List<WakeUpMode> modes = List.of(WakeUpMode.PUSH, WakeUpMode.POLL);
        int perBlock = settings.handoffs() / settings.rounds();
        System.out.println("Case 4 through the getMore proxy: routes " + routes.stream().map(Route::label).toList() + ", "
                + settings.handoffs() + " handoffs per route, mode and hold time, in " + settings.rounds() + " interleaved rounds");
        for (Route route : routes) {
            for (WakeUpMode mode : modes) {
                Benchmark.handoffsKeepingManagers(route.a(), route.b(), mode, "handoff-warm-up", 20, 6, new ArrayList<>());
                Benchmark.reset(route.a(), mode);
                Benchmark.reset(route.b(), mode);
            }
        }
        Map<String, Cell> cells = new LinkedHashMap<>();
        for (int round = 0; round < settings.rounds(); round++) {
            for (int r = 0; r < routes.size(); r++) {
                Route route = routes.get((r + round) % routes.size());
                for (int m = 0; m < modes.size(); m++) {
                    WakeUpMode mode = modes.get((m + round) % modes.size());
                    for (int hold : settings.holds()) {
                        block(route, mode, hold, perBlock, cells.computeIfAbsent(key(route, mode, hold), k -> new Cell()));
                    }
                }
            }
            System.out.printf("  proxied handoff round %d/%d done%n", round + 1, settings.rounds());
        }
        List<String> idle = new ArrayList<>();
        for (Route route : routes) {
            clearOplog.run();
            AwaitingGetMoreProxy.Counts before = route.proxy() == null ? null : route.proxy().counts();
            double perSecond = Benchmark.idleGetMoresPerSecond(route.a(), route.b());
            Map<String, String> status = Map.of("a", Benchmark.status(route.a()), "b", Benchmark.status(route.b()));
            AwaitingGetMoreProxy.Counts after = route.proxy() == null ? null : route.proxy().counts();
            Benchmark.reset(route.a(), WakeUpMode.PUSH);
            Benchmark.reset(route.b(), WakeUpMode.PUSH);
            idle.add(String.format(Locale.ROOT, "%s %.1f getMore/s per manager (feeds %s / %s%s)", route.label(), perSecond,
                    status.get("a"), status.get("b"), before == null ? "" : "; proxy over the idle measurement and the two"
                            + " handoffs opening it: " + (after.held() - before.held()) + " held, "
                            + (after.endedByAwait() - before.endedByAwait()) + " answered empty at the await's end"));
        }
        write(routes, modes, cells, idle);
    }

    private static String key(Route route, WakeUpMode mode, int hold) {
        return route.label() + "|" + mode + "|" + hold;
    }

    private void block(Route route, WakeUpMode mode, int hold, int count, Cell cell) throws InterruptedException {
        Benchmark.counts(route.a(), mode); // resets both workers' counters
        Benchmark.counts(route.b(), mode);
        clearOplog.run();
        AwaitingGetMoreProxy.Counts before = route.proxy() == null ? null : route.proxy().counts();
        long start = System.nanoTime();
        cell.latencies.addAll(Benchmark.handoffsKeepingManagers(route.a(), route.b(), mode, "handoff-" + hold, hold, count,
                cell.attempts));
        cell.seconds += (System.nanoTime() - start) / 1e9;
        cell.handoffsCounted += count + 2; // the block's two unkept handoffs sent commands too
        for (ChildJvm worker : List.of(route.a(), route.b())) {
            Benchmark.addCommands(cell.commands, Benchmark.keyValues(Benchmark.counts(worker, mode)).get("commands"));
        }
        if (before != null) {
            AwaitingGetMoreProxy.Counts after = route.proxy().counts();
            cell.held += after.held() - before.held();
            cell.resent += after.resent() - before.resent();
            cell.endedByAwait += after.endedByAwait() - before.endedByAwait();
        }
        Benchmark.reset(route.a(), mode);
        Benchmark.reset(route.b(), mode);
    }

    private void write(List<Route> routes, List<WakeUpMode> modes, Map<String, Cell> cells, List<String> idle) {
        report.heading("4p. Handoff directly and through the getMore proxy (time from the holder's close() to the"
                + " waiter's acquire() returning; " + settings.handoffs() + " handoffs per row, in " + settings.rounds()
                + " rounds interleaving routes and modes)");
        List<List<String>> rows = new ArrayList<>();
        for (int hold : settings.holds()) {
            for (WakeUpMode mode : modes) {
                Stats direct = new Stats(cells.get(key(routes.get(0), mode, hold)).latencies);
                for (Route route : routes) {
                    Cell cell = cells.get(key(route, mode, hold));
                    Stats stats = new Stats(cell.latencies);
                    long getMores = cell.commands.getOrDefault("getMore", 0L);
                    long others = cell.commands.values().stream().mapToLong(Long::longValue).sum() - getMores;
                    double attempts = cell.attempts.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
                    rows.add(List.of(mode.label, hold + " ms", route.label(), Stats.format(stats.percentile(50), 2),
                            Stats.format(stats.percentile(90), 2), Stats.format(stats.percentile(99), 2),
                            String.valueOf(cell.latencies.stream().filter(ms -> ms > 1000).count()),
                            route == routes.get(0) ? "1.00" : Stats.format(stats.percentile(50) / direct.percentile(50), 2),
                            Stats.format(attempts, 1),
                            Stats.format((double) getMores / cell.handoffsCounted, 1),
                            Stats.format(getMores / 2.0 / cell.seconds, 0),
                            Stats.format((double) others / cell.handoffsCounted, 1),
                            route.proxy() == null ? "-" : cell.held + " / " + cell.resent + " / " + cell.endedByAwait));
                }
            }
        }
        report.table(List.of("wake-up", "hold", "route", "p50 ms", "p90 ms", "p99 ms", "over 1 s", "p50 / direct p50",
                "waiter's attempts per handoff", "getMore per handoff (both managers)", "getMore/s per manager",
                "other commands per handoff (both managers)", "proxy: getMores held / re-sent after a write / answered"
                        + " empty at the await's end"), rows);
        report.line("Percentiles are nearest-rank over " + settings.handoffs() + " handoffs (p99 is the slowest);"
                + " \"over 1 s\": handoffs that took longer than 1 s (a waiter's backoff polls reach 2 s while its"
                + " feed pushes). Commands per handoff count"
                + " every command both workers' managers of that mode sent during a block (lock commands, the feeds'"
                + " getMore, aggregate, killCursors, reads) over all its handoffs, the two unkept ones that open the"
                + " change streams included; getMore/s divides a block's getMores by its length and by 2 managers."
                + " The proxy runs in the benchmark's JVM; direct, the workers talk to the stand-in's JVM.");
        report.line("Idle push feeds (" + Benchmark.IDLE_SECONDS + " s in which nobody waited, after both managers had"
                + " waited): " + idle + ".");
    }
}
