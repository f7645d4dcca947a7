package io.github.mongolock.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The example application (the WAR of examples/liberty, unchanged) in two WildFly servers at the same time, against
 * one MongoDB, observed through HTTP only: one holder at a time across the two, the EJB {@code @Schedule} job and
 * the Jakarta EE 11 {@code @Asynchronous(runAt)} schedule once per tick across the two, the leadership handed over,
 * and the readiness check following MongoDB. Two servers of one kind make the clearest proof that the locks, not a
 * server's own singleton or timer service, keep the work on one server. Everything binds to 127.0.0.1 and stops by
 * itself.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WildFlyIT {

    private static final Path WORK = Path.of(System.getProperty("it.work.dir", "target/it-work"));
    private static final Path SERVERS = Path.of(System.getProperty("it.servers.dir", "target/servers"));
    private static final Path HOME = Path.of(System.getProperty("it.wildfly.home", "target/wildfly"));
    private static final String DATABASE = "mongolock_wildfly_it";
    private static final int CLIENT_THREADS_PER_SERVER = 8;
    private static final int REQUESTS_PER_THREAD = 10;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

    private static TestDatabase mongo;
    private static LoopbackProxy proxy;
    private static WildFlyServer first;
    private static WildFlyServer second;
    private static long bothUpAtMillis;
    private static final Map<String, String> figures = new LinkedHashMap<>();

    @BeforeAll
    static void startServers() throws Exception {
        mongo = TestDatabase.start();
        proxy = LoopbackProxy.to(mongo.host(), mongo.port());
        Path war = SERVERS.resolve("mongolock-liberty-example.war");
        first = new WildFlyServer("wildfly-a", HOME, war, WORK.resolve("wildfly-a"));
        second = new WildFlyServer("wildfly-b", HOME, war, WORK.resolve("wildfly-b"));
        first.start(environment(first.name));
        second.start(environment(second.name));
        for (ServerProcess server : servers()) {
            assertTrue(server.awaitHttp("/api/info", START_TIMEOUT),
                    server.name + " did not serve /api/info within " + START_TIMEOUT + ":\n" + server.logTail(60));
            figures.put(server.name + " start to first answer", String.format("%.1f s", server.startSeconds()));
        }
        bothUpAtMillis = System.currentTimeMillis();
    }

    /**
     * MONGOLOCK_* variables override the application's microprofile-config.properties, and so does
     * EXAMPLE_SERVER_NAME (example.server-name): the two servers run the same WAR and tell themselves apart by it.
     */
    private static Map<String, String> environment(String name) {
        return Map.of(
                "MONGOLOCK_URI", "mongodb://127.0.0.1:" + proxy.port() + "/?directConnection=true",
                "MONGOLOCK_DATABASE", DATABASE,
                "MONGOLOCK_INSTANCE_ID", name + "-it",
                "EXAMPLE_SERVER_NAME", name);
    }

    @AfterAll
    static void stopServers() throws Exception {
        for (AutoCloseable resource : new AutoCloseable[] {first, second, proxy, mongo}) {
            if (resource != null) {
                resource.close();
            }
        }
        System.out.println("[wildfly] figures:");
        figures.forEach((what, value) -> System.out.printf("[wildfly]   %-55s %s%n", what, value));
    }

    private static List<WildFlyServer> servers() {
        return List.of(first, second);
    }

    @Test
    @Order(0)
    void theLibraryDeploysInterceptsAndReadsItsConfiguration() throws Exception {
        for (WildFlyServer server : servers()) {
            String url = server.baseUrl();
            Document info = JsonHttp.ok(JsonHttp.get(url + "/api/info"), "info");
            assertEquals(server.name + "-it", info.getString("instanceId"), "MONGOLOCK_INSTANCE_ID from the environment wins");
            assertEquals(server.name, info.getString("server"), "EXAMPLE_SERVER_NAME from the environment wins");
            assertEquals(true, info.getBoolean("storeAvailable"), info.toJson());

            // An EJB (@Stateless) whose lock name comes from an argument.
            Document charge = JsonHttp.ok(JsonHttp.post(url + "/api/accounts/acct-" + server.name + "/charges?cents=250"), "charge");
            assertTrue(charge.getString("owner").startsWith(server.name + "-it:"), charge.toJson());
            assertEquals(1, charge.getInteger("holdCount"), "the EJB method ran inside the lock");
            long chargeLease = charge.get("leaseLeftMs", Number.class).longValue();
            assertTrue(chargeLease > 10_000 && chargeLease <= 20_000,
                    "mongolock.lease-time=PT20S from microprofile-config.properties (default would be 30 s): " + chargeLease);
            assertEquals(404, JsonHttp.get(url + "/api/locks/account-acct-" + server.name).status(), "released after the call");

            // A CDI bean; its lease comes from the per-class override <class>/Locked/lease-time=PT15S.
            Document section = JsonHttp.ok(JsonHttp.post(url + "/api/ledger"), "ledger");
            assertTrue(section.getString("owner").startsWith(server.name + "-it:"), section.toJson());
            assertTrue(section.get("leaseLeftMs", Number.class).longValue() <= 15_000,
                    "per-class lease override: " + section.toJson());

            // The injected LockManager, re-entered in code.
            Document imported = JsonHttp.ok(JsonHttp.post(url + "/api/imports/catalogue"), "import");
            assertEquals(2, imported.getInteger("nestedHoldCount"));
            assertTrue(imported.getBoolean("sameToken"));
        }
    }

    @Test
    @Order(1)
    void bothServersTogetherNeverOverlapInTheCriticalSection() throws Exception {
        long before = JsonHttp.ok(JsonHttp.get(first.baseUrl() + "/api/ledger"), "ledger").get("value", Number.class).longValue();
        int requests = 2 * CLIENT_THREADS_PER_SERVER * REQUESTS_PER_THREAD;
        ExecutorService clients = Executors.newFixedThreadPool(2 * CLIENT_THREADS_PER_SERVER);
        long start = System.nanoTime();
        try {
            List<Future<Integer>> failures = new ArrayList<>();
            for (ServerProcess server : servers()) {
                for (int t = 0; t < CLIENT_THREADS_PER_SERVER; t++) {
                    failures.add(clients.submit(() -> {
                        int failed = 0;
                        for (int i = 0; i < REQUESTS_PER_THREAD; i++) {
                            JsonHttp.Answer answer = JsonHttp.post(server.baseUrl() + "/api/ledger");
                            if (answer.status() != 200) {
                                failed++;
                                System.out.println("[wildfly] " + server.name + " ledger answered " + answer.status()
                                        + ": " + answer.body());
                            }
                        }
                        return failed;
                    }));
                }
            }
            int failed = 0;
            for (Future<Integer> client : failures) {
                failed += client.get(5, TimeUnit.MINUTES);
            }
            assertEquals(0, failed, "every request got the lock and incremented");
        } finally {
            clients.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        Document ledger = JsonHttp.ok(JsonHttp.get(second.baseUrl() + "/api/ledger"), "ledger");
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
        figures.put("mutual exclusion: requests (2 servers x 8 clients x 10)", requests + " in " + String.format("%.1f s", seconds));
        figures.put("mutual exclusion: counter before / after", before + " / " + after);
        figures.put("mutual exclusion: critical sections recorded per server", perServer.toString());
        figures.put("mutual exclusion: overlapping sections / token inversions", overlaps + " / " + tokenInversions);

        assertEquals(before + requests, after, "no increment was lost");
        assertEquals(after, sections.size(), "one recorded section per increment");
        assertEquals(0, overlaps, "critical sections never overlap");
        assertEquals(0, tokenInversions, "fencing tokens strictly increase in time order");
        assertEquals(2, perServer.size(), "both servers took the lock: " + perServer);
        assertEquals(highestToken, fence, "the counter is written through FencedCollection: it carries the last holder's token");
    }

    /**
     * TickReport: Jakarta Concurrency 3.1 runs {@code @Asynchronous(runAt = @Schedule(cron = "*&#47;5 * * * * *"))}
     * {@code @Locked(onBusy = SKIP, holdAtLeast = "PT3S")} on both servers since the applications started. The ticks
     * are handed to one server, then the other, then back (the other is handicapped: its calls come 1 s late and
     * skip), and each tick must have run on exactly one server, both schedules going on after skipped ticks.
     */
    @Test
    @Order(2)
    void theJakartaEe11ScheduleRunsOncePerTickAndGoesOnAfterSkippedTicks() throws Exception {
        long period = 5_000;
        long firstTick = System.currentTimeMillis() / period + 1;
        long lastTick = 0;
        for (WildFlyServer handicapped : List.of(first, second, first)) {
            long tick = (System.currentTimeMillis() + 2_000) / period + 1; // at least 0.5 s to set the handicap
            sleepUntil(tick * period - 1_500);
            // 9 s from 1.5 s before the tick: this tick and the next, not the one after
            assertEquals(204, JsonHttp.post(handicapped.baseUrl() + "/api/ticks/handicap?seconds=9").status());
            lastTick = tick + 1;
            sleepUntil(lastTick * period + 2_500); // the handicapped call, 1 s late, has skipped and been recorded
        }

        Document ticks = JsonHttp.ok(JsonHttp.get(second.baseUrl() + "/api/ticks"), "ticks");
        Map<Long, List<Document>> runsByTick = new TreeMap<>();
        for (Document run : ticks.getList("runs", Document.class)) {
            long tick = run.get("tick", Number.class).longValue();
            if (tick >= firstTick && tick <= lastTick) {
                runsByTick.computeIfAbsent(tick, t -> new ArrayList<>()).add(run);
                assertTrue(run.getString("lockHolder").startsWith(run.getString("server") + "-it:"),
                        "the run was inside its server's lock: " + run.toJson());
            }
        }
        Map<String, Map<Long, Document>> attempts = new TreeMap<>();
        for (Document attempt : ticks.getList("attempts", Document.class)) {
            long tick = attempt.get("tick", Number.class).longValue();
            if (tick >= firstTick && tick <= lastTick) {
                Document earlier = attempts.computeIfAbsent(attempt.getString("server"), s -> new TreeMap<>()).put(tick, attempt);
                assertEquals(null, earlier, "one scheduled call per tick and server: " + attempt.toJson());
                assertEquals("null", attempt.getString("returned"), "every run and skip returned null: " + attempt.toJson());
            }
        }
        figures.put("EE 11 schedule: ticks, the server that ran each", runsByTick.entrySet().stream()
                .map(e -> e.getKey() - firstTick + ":" + e.getValue().stream().map(r -> r.getString("server"))
                        .collect(Collectors.joining("+")))
                .collect(Collectors.joining(" ")));

        assertTrue(lastTick - firstTick + 1 >= 6, "at least 6 ticks observed: " + (lastTick - firstTick + 1));
        for (long tick = firstTick; tick <= lastTick; tick++) {
            assertEquals(1, runsByTick.getOrDefault(tick, List.of()).size(),
                    "tick " + tick + " ran on exactly one server: " + runsByTick.get(tick));
            for (WildFlyServer server : servers()) {
                assertTrue(attempts.getOrDefault(server.name, Map.of()).containsKey(tick),
                        server.name + "'s schedule called the method at tick " + tick + " (it goes on after skips): " + attempts);
            }
        }
        for (WildFlyServer server : servers()) {
            long skipped = -1;
            long ranAfterASkip = -1;
            for (long tick = firstTick; tick <= lastTick; tick++) {
                String ranOn = runsByTick.get(tick).get(0).getString("server");
                if (!ranOn.equals(server.name) && skipped < 0) {
                    skipped = tick;
                } else if (ranOn.equals(server.name) && skipped >= 0) {
                    ranAfterASkip = tick;
                }
            }
            assertTrue(skipped >= 0 && ranAfterASkip > skipped,
                    server.name + " skipped a tick and ran a later one: " + runsByTick);
        }
        // The run happened on the thread of the scheduled call (Concurrency's executor), and the lock was free when
        // the trace interceptor (PLATFORM_BEFORE + 50) was called, taken by @Locked (PLATFORM_BEFORE + 100) inside it.
        for (Map.Entry<Long, List<Document>> tick : runsByTick.entrySet()) {
            Document run = tick.getValue().get(0);
            Document attempt = attempts.get(run.getString("server")).get(tick.getKey());
            assertEquals(attempt.getString("thread"), run.getString("thread"), "same thread: " + run.toJson() + " " + attempt.toJson());
            assertEquals(false, attempt.getBoolean("lockHeldBefore"), "free before @Locked: " + attempt.toJson());
        }
        runsByTick.values().stream().findFirst().ifPresent(runs ->
                figures.put("EE 11 schedule: ran on thread", runs.get(0).getString("thread")));
    }

    /** NightlyReport: an EJB {@code @Schedule} every 10 s with {@code @Locked(onBusy = SKIP, holdAtLeast = "PT7S")}. */
    @Test
    @Order(3)
    void theScheduledJobRunsOncePerTickAcrossBothServers() throws Exception {
        long period = 10_000;
        // From the second whole period after both servers answered: a timer that fires seconds late while a server
        // is still warming up holds the lock 7 s from its late grant (holdAtLeast), into the next tick, which both
        // servers then rightly skip. Ticks are checked once the servers run at speed.
        long firstTick = bothUpAtMillis / period + 2;
        sleepUntil((firstTick + 3) * period + 8_000); // three full ticks, the last one's hold included (usually past)
        long lastCompleteTick = (System.currentTimeMillis() - 8_000) / period;
        List<Document> runs = JsonHttp.get(first.baseUrl() + "/api/reports").jsonList();
        Map<Long, List<String>> byTick = new TreeMap<>();
        Map<Long, List<String>> allByTick = new TreeMap<>(); // for the messages: server@+ms after the tick
        for (Document run : runs) {
            long tick = run.get("tick", Number.class).longValue();
            allByTick.computeIfAbsent(tick, t -> new ArrayList<>()).add(run.getString("server") + "@+"
                    + (run.get("at", Number.class).longValue() - tick * period) + "ms");
            if (tick >= firstTick && tick <= lastCompleteTick) {
                byTick.computeIfAbsent(tick, t -> new ArrayList<>()).add(run.getString("server"));
                assertTrue(run.getString("lockHolder").startsWith(run.getString("server") + "-it:"),
                        "the job ran inside the lock: " + run.toJson());
            }
        }
        figures.put("EJB @Schedule (onBusy=SKIP): ticks observed, runs per tick", byTick.size() + " ticks, "
                + byTick.values().stream().map(servers -> String.join("+", servers)).collect(Collectors.joining(" ")));
        assertTrue(byTick.size() >= 3, "the timer fired on every tick: " + byTick + " (all runs: " + allByTick + ")");
        for (long tick = firstTick; tick <= lastCompleteTick; tick++) {
            assertEquals(1, byTick.getOrDefault(tick, List.of()).size(), "tick " + tick + " ran once; first tick checked "
                    + firstTick + ", all runs: " + allByTick);
        }
    }

    @Test
    @Order(4)
    void oneServerIsLeaderAndAStepDownHandsTheLeadershipToTheOther() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (leaders().size() != 1 && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        List<WildFlyServer> leaders = leaders();
        assertEquals(1, leaders.size(), "exactly one leader of example-leader: "
                + leaders.stream().map(server -> server.name).toList());
        WildFlyServer leader = leaders.get(0);
        WildFlyServer other = leader == first ? second : first;
        long term = leaderView(leader).get("term", Number.class).longValue();
        Document lock = JsonHttp.ok(JsonHttp.get(leader.baseUrl() + "/api/locks/example-leader"), "lock");
        assertEquals(term, lock.get("fencingToken", Number.class).longValue(), "the term is the election lock's token");

        long steppedAt = System.nanoTime();
        JsonHttp.ok(JsonHttp.post(leader.baseUrl() + "/api/leader/step-down"), "step-down");
        deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!leaderView(other).getBoolean("leader") && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        Document now = leaderView(other);
        assertTrue(now.getBoolean("leader"), "the other server took over: " + now.toJson());
        assertTrue(now.get("term", Number.class).longValue() > term, "a higher term: " + now.toJson());
        assertEquals(false, leaderView(leader).getBoolean("leader"));
        figures.put("leader election: step-down to the other server's leadership",
                (System.nanoTime() - steppedAt) / 1_000_000 + " ms (poll PT1S)");
    }

    private static List<WildFlyServer> leaders() throws Exception {
        List<WildFlyServer> leaders = new ArrayList<>();
        for (WildFlyServer server : servers()) {
            if (leaderView(server).getBoolean("leader")) {
                leaders.add(server);
            }
        }
        return leaders;
    }

    private static Document leaderView(WildFlyServer server) throws Exception {
        return JsonHttp.ok(JsonHttp.get(server.baseUrl() + "/api/leader"), "leader");
    }

    /** WildFly serves MicroProfile Health on its management interface, beside its own checks (deployments, boot). */
    @Test
    @Order(5)
    void readinessIsDownWhileMongoDbIsUnreachableAndUpWhenItIsBack() throws Exception {
        for (WildFlyServer server : servers()) {
            assertReadiness(server, "UP", Duration.ofSeconds(30));
        }
        proxy.cut();
        long cutAt = System.nanoTime();
        try {
            for (WildFlyServer server : servers()) {
                assertReadiness(server, "DOWN", Duration.ofSeconds(60));
                figures.put(server.name + " readiness DOWN after MongoDB went away",
                        String.format("%.1f s", (System.nanoTime() - cutAt) / 1e9));
            }
        } finally {
            proxy.restore();
        }
        long restoredAt = System.nanoTime();
        for (WildFlyServer server : servers()) {
            assertReadiness(server, "UP", Duration.ofSeconds(60));
            figures.put(server.name + " readiness UP after MongoDB came back",
                    String.format("%.1f s", (System.nanoTime() - restoredAt) / 1e9));
        }
    }

    private static void assertReadiness(WildFlyServer server, String expected, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            JsonHttp.Answer answer = JsonHttp.get(server.managementUrl() + "/health/ready");
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
        throw new AssertionError(server.name + " readiness did not become " + expected + " within " + within
                + "; last answer: " + last);
    }

    private static void sleepUntil(long epochMillis) throws InterruptedException {
        long sleep = epochMillis - System.currentTimeMillis();
        if (sleep > 0) {
            Thread.sleep(sleep);
        }
    }
}
