package io.github.mongolock.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.bson.Document;

/**
 * The checks that two servers running the example application (examples/liberty's WAR, in any runtime) must pass
 * together against one MongoDB, observed through HTTP only, with the figures they record. An IT owns the servers,
 * the database and the proxy; this class owns what is asserted about them. Not thread-safe: one IT's test methods,
 * one after the other.
 */
final class TwoServerChecks {

    /**
     * One server as the checks see it: its process, the name the application reports ({@code example.server-name}),
     * the {@code mongolock.instance-id} that starts its lock owners, and the URL of its MicroProfile readiness (which
     * WildFly serves on its management port, not on the application's).
     */
    record Server(ServerProcess process, String serverName, String instanceId, String readinessUrl) {
        String url(String path) {
            return process.baseUrl() + path;
        }
    }

    private final String logPrefix;
    private final List<Server> servers;
    private final LoopbackProxy proxy;
    private final Map<String, String> figures = new LinkedHashMap<>();
    private long bothUpAtMillis;

    /** {@code proxy} is the one both servers reach MongoDB through, cut by the readiness check. */
    TwoServerChecks(String logPrefix, LoopbackProxy proxy, Server first, Server second) {
        this.logPrefix = logPrefix;
        this.proxy = proxy;
        this.servers = List.of(first, second);
    }

    void figure(String what, String value) {
        figures.put(what, value);
    }

    void printFigures() {
        System.out.println(logPrefix + " figures:");
        figures.forEach((what, value) -> System.out.printf("%s   %-55s %s%n", logPrefix, what, value));
    }

    /** Waits for both started servers to serve {@code /api/info}; the schedule checks count ticks from then. */
    void awaitBothAnswer(Duration timeout) throws InterruptedException {
        for (Server server : servers) {
            ServerProcess process = server.process();
            assertTrue(process.awaitHttp("/api/info", timeout),
                    process.name + " did not serve /api/info within " + timeout + ":\n" + process.logTail(60));
            figure(process.name + " start to first answer", String.format("%.1f s", process.startSeconds()));
        }
        bothUpAtMillis = System.currentTimeMillis();
    }

    void libraryDeploysInterceptsAndReadsItsConfiguration() throws Exception {
        for (Server server : servers) {
            Document info = JsonHttp.ok(JsonHttp.get(server.url("/api/info")), "info");
            assertEquals(server.instanceId(), info.getString("instanceId"), "MONGOLOCK_INSTANCE_ID from the environment wins");
            assertEquals(server.serverName(), info.getString("server"), "example.server-name as configured for this server");
            assertEquals(true, info.getBoolean("storeAvailable"), info.toJson());

            // An EJB (@Stateless) whose lock name comes from an argument.
            String account = "acct-" + server.process().name;
            Document charge = JsonHttp.ok(JsonHttp.post(server.url("/api/accounts/" + account + "/charges?cents=250")), "charge");
            assertTrue(charge.getString("owner").startsWith(server.instanceId() + ":"), charge.toJson());
            assertEquals(1, charge.getInteger("holdCount"), "the EJB method ran inside the lock");
            long chargeLease = charge.get("leaseLeftMs", Number.class).longValue();
            assertTrue(chargeLease > 10_000 && chargeLease <= 20_000,
                    "mongolock.lease-time=PT20S from microprofile-config.properties (default would be 30 s): " + chargeLease);
            assertEquals(404, JsonHttp.get(server.url("/api/locks/account-" + account)).status(), "released after the call");

            // A CDI bean; its lease comes from the per-class override <class>/Locked/lease-time=PT15S.
            Document section = JsonHttp.ok(JsonHttp.post(server.url("/api/ledger")), "ledger");
            assertTrue(section.getString("owner").startsWith(server.instanceId() + ":"), section.toJson());
            assertTrue(section.get("leaseLeftMs", Number.class).longValue() <= 15_000,
                    "per-class lease override: " + section.toJson());

            // The injected LockManager, re-entered in code.
            Document imported = JsonHttp.ok(JsonHttp.post(server.url("/api/imports/catalogue")), "import");
            assertEquals(2, imported.getInteger("nestedHoldCount"));
            assertTrue(imported.getBoolean("sameToken"));
        }
    }

    /**
     * {@code clientsPerServer} threads per server each POST {@code requestsPerClient} increments of the ledger at
     * once; the ledger's recorded critical sections must never overlap, and their tokens must rise in time order.
     */
    void bothServersTogetherNeverOverlapInTheCriticalSection(int clientsPerServer, int requestsPerClient) throws Exception {
        long before = JsonHttp.ok(JsonHttp.get(servers.get(0).url("/api/ledger")), "ledger").get("value", Number.class).longValue();
        int requests = servers.size() * clientsPerServer * requestsPerClient;
        ExecutorService clients = Executors.newFixedThreadPool(servers.size() * clientsPerServer);
        long start = System.nanoTime();
        try {
            List<Future<Integer>> failures = new ArrayList<>();
            for (Server server : servers) {
                for (int t = 0; t < clientsPerServer; t++) {
                    failures.add(clients.submit(() -> failedLedgerPosts(server, requestsPerClient)));
                }
            }
            int failed = 0;
            for (Future<Integer> client : failures) {
                failed += client.get(10, TimeUnit.MINUTES);
            }
            assertEquals(0, failed, "every request got the lock and incremented");
        } finally {
            clients.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        // Read from the other server than the first count: both see one ledger.
        Document ledger = JsonHttp.ok(JsonHttp.get(servers.get(1).url("/api/ledger")), "ledger");
        long after = ledger.get("value", Number.class).longValue();
        List<Document> sections = new ArrayList<>(ledger.getList("sections", Document.class));
        sections.sort(Comparator.comparingLong(s -> s.get("startNanos", Number.class).longValue()));
        int overlaps = 0;
        int tokenInversions = 0;
        for (int i = 1; i < sections.size(); i++) {
            Document previous = sections.get(i - 1);
            Document next = sections.get(i);
            if (previous.get("endNanos", Number.class).longValue() > next.get("startNanos", Number.class).longValue()) {
                overlaps++;
            }
            if (next.get("token", Number.class).longValue() <= previous.get("token", Number.class).longValue()) {
                tokenInversions++;
            }
        }
        Map<String, Long> perServer = sections.stream().collect(Collectors.groupingBy(s -> s.getString("server"),
                TreeMap::new, Collectors.counting()));
        long highestToken = sections.stream().mapToLong(s -> s.get("token", Number.class).longValue()).max().orElse(0);
        long fence = ledger.get("fence", Number.class).longValue();
        figure("mutual exclusion: requests (" + servers.size() + " servers x " + clientsPerServer + " clients x "
                + requestsPerClient + ")", requests + " in " + String.format("%.1f s", seconds));
        figure("mutual exclusion: counter before / after", before + " / " + after);
        figure("mutual exclusion: critical sections recorded per server", perServer.toString());
        figure("mutual exclusion: overlapping sections", Integer.toString(overlaps));
        figure("mutual exclusion: token inversions in time order", Integer.toString(tokenInversions));
        figure("mutual exclusion: counter's fence / highest section token", fence + " / " + highestToken);

        assertEquals(before + requests, after, "no increment was lost");
        assertEquals(after, sections.size(), "one recorded section per increment");
        assertEquals(0, overlaps, "critical sections never overlap");
        assertEquals(0, tokenInversions, "fencing tokens strictly increase in time order");
        assertEquals(2, perServer.size(), "both servers took the lock: " + perServer);
        assertEquals(highestToken, fence, "the counter is written through FencedCollection: it carries the last holder's token");
    }

    private int failedLedgerPosts(Server server, int requests) throws Exception {
        int failed = 0;
        for (int i = 0; i < requests; i++) {
            JsonHttp.Answer answer = JsonHttp.post(server.url("/api/ledger"));
            if (answer.status() != 200) {
                failed++;
                System.out.println(logPrefix + " " + server.process().name + " ledger answered " + answer.status()
                        + ": " + answer.body());
            }
        }
        return failed;
    }

    /** NightlyReport: an EJB {@code @Schedule} every 10 s with {@code @Locked(onBusy = SKIP, holdAtLeast = "PT7S")}. */
    void ejbScheduleRunsOncePerTickAcrossBothServers() throws Exception {
        long period = 10_000;
        // From the second whole period after both servers answered: a timer that fires seconds late while a server
        // is still warming up (a Liberty EJB timer was once seen 9 s late under load) holds the lock 7 s from its
        // late grant (holdAtLeast), into the next tick, which both servers then rightly skip. Ticks are checked once
        // the servers run at speed.
        long firstTick = bothUpAtMillis / period + 2;
        sleepUntil((firstTick + 3) * period + 8_000); // three full ticks, the last one's hold included (usually past)
        long lastCompleteTick = (System.currentTimeMillis() - 8_000) / period;
        List<Document> runs = JsonHttp.get(servers.get(0).url("/api/reports")).jsonList();
        Map<Long, List<String>> byTick = new TreeMap<>(); // server@+ms after the tick
        Map<Long, List<String>> allByTick = new TreeMap<>(); // for the messages: the ticks outside the range too
        for (Document run : runs) {
            long tick = run.get("tick", Number.class).longValue();
            String ran = run.getString("server") + "@+" + (run.get("at", Number.class).longValue() - tick * period) + "ms";
            allByTick.computeIfAbsent(tick, t -> new ArrayList<>()).add(ran);
            if (tick >= firstTick && tick <= lastCompleteTick) {
                byTick.computeIfAbsent(tick, t -> new ArrayList<>()).add(ran);
                assertTrue(run.getString("lockHolder").startsWith(instanceIdOf(run.getString("server")) + ":"),
                        "the job ran inside the lock: " + run.toJson());
            }
        }
        figure("EJB @Schedule (onBusy=SKIP): ticks observed, runs per tick", byTick.size() + " ticks, " + byTick);
        assertTrue(byTick.size() >= 3, "the timer fired on every tick: " + byTick + " (all runs: " + allByTick + ")");
        for (long tick = firstTick; tick <= lastCompleteTick; tick++) {
            assertEquals(1, byTick.getOrDefault(tick, List.of()).size(), "tick " + tick + " ran once; first tick checked "
                    + firstTick + ", all runs: " + allByTick);
        }
    }

    /**
     * TickReport: Jakarta Concurrency 3.1 runs {@code @Asynchronous(runAt = @Schedule(cron = "*&#47;5 * * * * *"))}
     * {@code @Locked(onBusy = SKIP, holdAtLeast = "PT3S")} on both servers since the applications started. The ticks
     * are handed to one server, then the other, then back (the other is handicapped: its calls come 1 s late and
     * skip), so that each server skips and afterwards runs again; each tick must have run on exactly one server.
     */
    void jakartaEe11ScheduleRunsOncePerTickAndGoesOnAfterSkippedTicks() throws Exception {
        long period = 5_000;
        // From this check's own start: under the load of earlier checks (8 blocked requests per server), a
        // server's executor may run a tick late, which Concurrency then skips; that is not what is checked here.
        long firstTick = System.currentTimeMillis() / period + 1;
        // Three phases of two ticks: the second server runs while the first is handicapped, then the first, then
        // the second again.
        long lastTick = 0;
        for (Server handicapped : List.of(servers.get(0), servers.get(1), servers.get(0))) {
            long tick = (System.currentTimeMillis() + 2_000) / period + 1; // at least 0.5 s to set the handicap
            sleepUntil(tick * period - 1_500);
            // 9 s from 1.5 s before the tick: this tick and the next, not the one after
            assertEquals(204, JsonHttp.post(handicapped.url("/api/ticks/handicap?seconds=9")).status());
            lastTick = tick + 1;
            sleepUntil(lastTick * period + 2_500); // the handicapped call, 1 s late, has skipped and been recorded
        }

        Document ticks = JsonHttp.ok(JsonHttp.get(servers.get(1).url("/api/ticks")), "ticks");
        Map<Long, List<Document>> runsByTick = new TreeMap<>();
        for (Document run : ticks.getList("runs", Document.class)) {
            long tick = run.get("tick", Number.class).longValue();
            if (tick >= firstTick && tick <= lastTick) {
                runsByTick.computeIfAbsent(tick, t -> new ArrayList<>()).add(run);
                assertTrue(run.getString("lockHolder").startsWith(instanceIdOf(run.getString("server")) + ":"),
                        "the run was inside its server's lock: " + run.toJson());
            }
        }
        Map<String, Map<Long, Document>> attempts = new TreeMap<>();
        Map<String, Document> lastAttempt = new TreeMap<>(); // for the messages: a schedule that stopped, and why
        for (Document attempt : ticks.getList("attempts", Document.class)) {
            long tick = attempt.get("tick", Number.class).longValue();
            lastAttempt.merge(attempt.getString("server"), attempt,
                    (a, b) -> a.get("tick", Number.class).longValue() >= tick ? a : b);
            if (tick >= firstTick && tick <= lastTick) {
                Document earlier = attempts.computeIfAbsent(attempt.getString("server"), s -> new TreeMap<>()).put(tick, attempt);
                assertEquals(null, earlier, "one scheduled call per tick and server: " + attempt.toJson());
                assertEquals("null", attempt.getString("returned"), "every run and skip returned null: " + attempt.toJson());
            }
        }
        long from = firstTick;
        figure("EE 11 schedule: ticks, the server that ran each", runsByTick.entrySet().stream()
                .map(e -> e.getKey() - from + ":" + e.getValue().stream().map(r -> r.getString("server"))
                        .collect(Collectors.joining("+")))
                .collect(Collectors.joining(" ")));

        long ticksSeen = lastTick - firstTick + 1;
        assertTrue(ticksSeen >= 6, "at least 6 ticks observed: " + ticksSeen);
        for (long tick = firstTick; tick <= lastTick; tick++) {
            assertEquals(1, runsByTick.getOrDefault(tick, List.of()).size(),
                    "tick " + tick + " ran on exactly one server: " + runsByTick.get(tick));
            for (Server server : servers) {
                assertTrue(attempts.getOrDefault(server.serverName(), Map.of()).containsKey(tick),
                        server.serverName() + "'s schedule called the method at tick " + tick + " (it goes on after skips);"
                                + " last call of each server: " + lastAttempt + "; first tick checked " + firstTick);
            }
        }
        for (Server server : servers) {
            long skipped = -1;
            long ranAfterASkip = -1;
            for (long tick = firstTick; tick <= lastTick; tick++) {
                String ranOn = runsByTick.get(tick).get(0).getString("server");
                if (!ranOn.equals(server.serverName()) && skipped < 0) {
                    skipped = tick;
                } else if (ranOn.equals(server.serverName()) && skipped >= 0) {
                    ranAfterASkip = tick;
                }
            }
            assertTrue(skipped >= 0 && ranAfterASkip > skipped,
                    server.serverName() + " skipped a tick and ran a later one: " + runsByTick.keySet() + " " + runsByTick);
        }
        // Interceptor order, as seen on the servers: the run happened on the thread that made the scheduled call
        // (Concurrency's executor), and the lock, free when the trace interceptor (PLATFORM_BEFORE + 50) was
        // called, was taken by @Locked (PLATFORM_BEFORE + 100) inside it.
        for (Map.Entry<Long, List<Document>> tick : runsByTick.entrySet()) {
            Document run = tick.getValue().get(0);
            Document attempt = attempts.get(run.getString("server")).get(tick.getKey());
            assertEquals(attempt.getString("thread"), run.getString("thread"), "same thread: " + run.toJson() + " " + attempt.toJson());
            assertEquals(false, attempt.getBoolean("lockHeldBefore"), "free before @Locked: " + attempt.toJson());
        }
        for (Server server : servers) {
            runsByTick.values().stream().map(runs -> runs.get(0)).filter(run -> run.getString("server").equals(server.serverName()))
                    .findFirst().ifPresent(run -> figure("EE 11 schedule: " + server.serverName() + " ran on thread",
                            run.getString("thread")));
        }
    }

    void oneServerIsLeaderAndAStepDownHandsTheLeadershipToTheOther() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Map<String, Document> views = leaderViews();
        while (views.values().stream().filter(view -> view.getBoolean("leader")).count() != 1 && System.nanoTime() < deadline) {
            Thread.sleep(200);
            views = leaderViews();
        }
        Map<String, Document> settled = views;
        assertEquals(1, settled.values().stream().filter(view -> view.getBoolean("leader")).count(),
                "exactly one leader of example-leader: " + settled);
        Server leader = servers.stream().filter(server -> settled.get(server.serverName()).getBoolean("leader"))
                .findFirst().orElseThrow();
        Server other = leader == servers.get(0) ? servers.get(1) : servers.get(0);
        Document lock = JsonHttp.ok(JsonHttp.get(leader.url("/api/locks/example-leader")), "lock");
        long term = leaderView(leader).get("term", Number.class).longValue();
        assertEquals(term, lock.get("fencingToken", Number.class).longValue(), "the term is the election lock's token");
        assertTrue(lock.getString("owner").startsWith(leader.instanceId() + ":"), lock.toJson());
        assertEquals(false, leaderView(other).getBoolean("leader"), "one leader: " + leaderViews());

        long steppedAt = System.nanoTime();
        JsonHttp.ok(JsonHttp.post(leader.url("/api/leader/step-down")), "step-down");
        deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!leaderView(other).getBoolean("leader") && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        long tookOverMillis = (System.nanoTime() - steppedAt) / 1_000_000;
        Document now = leaderView(other);
        assertTrue(now.getBoolean("leader"), "the other server took over: " + leaderViews());
        assertTrue(now.get("term", Number.class).longValue() > term, "a higher term: " + now.toJson());
        Document former = leaderView(leader);
        assertEquals(false, former.getBoolean("leader"));
        assertTrue(former.getString("lastEvent").contains("STEPPED_DOWN"), former.toJson());
        figure("leader election: first leader, term", leader.process().name + ", " + term);
        figure("leader election: step-down to the other server's leadership", tookOverMillis + " ms (poll PT1S)");
    }

    /** Each server's own view of the election, by server name. */
    private Map<String, Document> leaderViews() throws Exception {
        Map<String, Document> views = new LinkedHashMap<>();
        for (Server server : servers) {
            views.put(server.serverName(), leaderView(server));
        }
        return views;
    }

    private static Document leaderView(Server server) throws Exception {
        return JsonHttp.ok(JsonHttp.get(server.url("/api/leader")), "leader");
    }

    /** Both servers' readiness through a MongoDB outage: the proxy is cut, then restored. */
    void readinessIsDownWhileMongoDbIsUnreachableAndUpWhenItIsBack() throws Exception {
        for (Server server : servers) {
            assertReadiness(server, "UP", Duration.ofSeconds(30));
        }
        proxy.cut();
        long cutAt = System.nanoTime();
        try {
            for (Server server : servers) {
                assertReadiness(server, "DOWN", Duration.ofSeconds(60));
                figure(server.process().name + " readiness DOWN after MongoDB went away",
                        String.format("%.1f s", (System.nanoTime() - cutAt) / 1e9));
            }
        } finally {
            proxy.restore();
        }
        long restoredAt = System.nanoTime();
        for (Server server : servers) {
            assertReadiness(server, "UP", Duration.ofSeconds(60));
            figure(server.process().name + " readiness UP after MongoDB came back",
                    String.format("%.1f s", (System.nanoTime() - restoredAt) / 1e9));
        }
    }

    private static void assertReadiness(Server server, String expected, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            JsonHttp.Answer answer = JsonHttp.get(server.readinessUrl());
            last = answer.status() + " " + answer.body();
            if (answer.body().startsWith("{")) {
                Document check = answer.json().getList("checks", Document.class).stream()
                        .filter(c -> "mongolock".equals(c.getString("name"))).findFirst().orElse(null);
                if (check != null && expected.equals(check.getString("status"))
                        && answer.status() == (expected.equals("UP") ? 200 : 503)) {
                    return;
                }
            }
            Thread.sleep(500);
        }
        throw new AssertionError(server.process().name + " readiness did not become " + expected + " within " + within
                + "; last answer: " + last);
    }

    /** The instance id of the server that reports {@code serverName}; a name of neither server fails the check. */
    private String instanceIdOf(String serverName) {
        return servers.stream().filter(server -> server.serverName().equals(serverName)).findFirst()
                .map(Server::instanceId)
                .orElseThrow(() -> new AssertionError("a server name neither server reports: " + serverName));
    }

    private static void sleepUntil(long epochMillis) throws InterruptedException {
        long sleep = epochMillis - System.currentTimeMillis();
        if (sleep > 0) {
            Thread.sleep(sleep);
        }
    }
}
