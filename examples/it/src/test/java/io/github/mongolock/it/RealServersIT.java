package io.github.mongolock.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The example application in Open Liberty and in Payara Micro at the same time, against one
 * MongoDB, observed through HTTP only. Everything binds to 127.0.0.1 and stops by itself.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealServersIT {

    private static final Path WORK = Path.of(System.getProperty("it.work.dir", "target/it-work"));
    private static final Path SERVERS = Path.of(System.getProperty("it.servers.dir", "target/servers"));
    private static final Path WLP = Path.of(System.getProperty("it.liberty.home", "target/liberty/wlp"));
    private static final String DATABASE = "mongolock_it";
    private static final int CLIENT_THREADS_PER_SERVER = 8;
    private static final int REQUESTS_PER_THREAD = 15;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

    private static TestDatabase mongo;
    private static LoopbackProxy proxy;
    private static LibertyServer liberty;
    private static PayaraMicroServer payara;
    private static long bothUpAtMillis;
    private static final Map<String, String> figures = new LinkedHashMap<>();

    @BeforeAll
    static void startServers() throws Exception {
        mongo = TestDatabase.start();
        proxy = LoopbackProxy.to(mongo.host(), mongo.port());
        liberty = new LibertyServer("liberty-it", WLP, Path.of(System.getProperty("it.liberty.server.xml")),
                SERVERS.resolve("mongolock-liberty-example.war"));
        payara = new PayaraMicroServer("payara-it", SERVERS.resolve(System.getProperty("it.payara.micro.jar", "payara-micro.jar")),
                SERVERS.resolve("mongolock-payara-example.war"), Path.of(System.getProperty("it.payara.config.dir")),
                WORK.resolve("payara-it"));
        liberty.start(environment("liberty-it"));
        payara.start(environment("payara-it"));
        for (ServerProcess server : List.of(liberty, payara)) {
            assertTrue(server.awaitHttp("/api/info", START_TIMEOUT),
                    server.name + " did not serve /api/info within " + START_TIMEOUT + ":\n" + server.logTail(60));
            figures.put(server.name + " start to first answer", String.format("%.1f s", server.startSeconds()));
        }
        bothUpAtMillis = System.currentTimeMillis();
    }

    /** MONGOLOCK_* variables override the application's microprofile-config.properties. */
    private static Map<String, String> environment(String instanceId) {
        return Map.of(
                "MONGOLOCK_URI", "mongodb://127.0.0.1:" + proxy.port() + "/?directConnection=true",
                "MONGOLOCK_DATABASE", DATABASE,
                "MONGOLOCK_INSTANCE_ID", instanceId);
    }

    @AfterAll
    static void stopServers() throws Exception {
        for (AutoCloseable resource : new AutoCloseable[] {liberty, payara, proxy, mongo}) {
            if (resource != null) {
                resource.close();
            }
        }
        System.out.println("[real servers] figures:");
        figures.forEach((what, value) -> System.out.printf("[real servers]   %-55s %s%n", what, value));
    }

    private static List<ServerProcess> servers() {
        return List.of(liberty, payara);
    }

    private static String serverName(ServerProcess server) {
        return server == liberty ? "liberty" : "payara";
    }

    @Test
    @Order(0)
    void theLibraryDeploysInterceptsAndReadsItsConfiguration() throws Exception {
        for (ServerProcess server : servers()) {
            String url = server.baseUrl();
            Document info = JsonHttp.ok(JsonHttp.get(url + "/api/info"), "info");
            assertEquals(server.name, info.getString("instanceId"), "MONGOLOCK_INSTANCE_ID from the environment wins");
            assertEquals(serverName(server), info.getString("server"), "example.server-name from the properties file");

            // An EJB (@Stateless) whose lock name comes from an argument.
            Document charge = JsonHttp.ok(JsonHttp.post(url + "/api/accounts/acct-" + server.name + "/charges?cents=250"), "charge");
            assertTrue(charge.getString("owner").startsWith(server.name + ":"), charge.toJson());
            assertEquals(1, charge.getInteger("holdCount"), "the EJB method ran inside the lock");
            long chargeLease = charge.get("leaseLeftMs", Number.class).longValue();
            assertTrue(chargeLease > 10_000 && chargeLease <= 20_000,
                    "mongolock.lease-time=PT20S from microprofile-config.properties (default would be 30 s): " + chargeLease);
            assertEquals(404, JsonHttp.get(url + "/api/locks/account-acct-" + server.name).status(), "released after the call");

            // A CDI bean; its lease comes from the per-class override <class>/Locked/lease-time=PT15S.
            Document section = JsonHttp.ok(JsonHttp.post(url + "/api/ledger"), "ledger");
            assertTrue(section.getString("owner").startsWith(server.name + ":"), section.toJson());
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
        long before = JsonHttp.ok(JsonHttp.get(liberty.baseUrl() + "/api/ledger"), "ledger").get("value", Number.class).longValue();
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
                                System.out.println("[real servers] " + server.name + " ledger answered " + answer.status()
                                        + ": " + answer.body());
                            }
                        }
                        return failed;
                    }));
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

        Document ledger = JsonHttp.ok(JsonHttp.get(payara.baseUrl() + "/api/ledger"), "ledger");
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
        figures.put("mutual exclusion: requests (2 servers x 8 clients x 15)", requests + " in " + String.format("%.1f s", seconds));
        figures.put("mutual exclusion: counter before / after", before + " / " + after);
        figures.put("mutual exclusion: critical sections recorded per server", perServer.toString());
        figures.put("mutual exclusion: overlapping sections", Integer.toString(overlaps));
        figures.put("mutual exclusion: token inversions in time order", Integer.toString(tokenInversions));
        long highestToken = sections.stream().mapToLong(s -> s.get("token", Number.class).longValue()).max().orElse(0);
        long fence = ledger.get("fence", Number.class).longValue();
        figures.put("mutual exclusion: counter's fence / highest section token", fence + " / " + highestToken);

        assertEquals(before + requests, after, "no increment was lost");
        assertEquals(after, sections.size(), "one recorded section per increment");
        assertEquals(0, overlaps, "critical sections never overlap");
        assertEquals(0, tokenInversions, "fencing tokens strictly increase in time order");
        assertEquals(2, perServer.size(), "both servers took the lock: " + perServer);
        assertEquals(highestToken, fence, "the counter is written through FencedCollection: it carries the last holder's token");
    }

    @Test
    @Order(2)
    void theScheduledJobRunsOncePerTickAcrossBothServers() throws Exception {
        long period = 10_000; // NightlyReport: every 10 s, the winner keeps the lock 7 s past its grant (holdAtLeast)
        // Ticks that both servers' timers saw: from the first whole period after both were up.
        long firstTick = bothUpAtMillis / period + 1;
        long waitUntil = (firstTick + 3) * period + 8_000; // three full ticks, the last one's hold included
        long sleep = waitUntil - System.currentTimeMillis();
        if (sleep > 0) {
            Thread.sleep(sleep);
        }
        long lastCompleteTick = (System.currentTimeMillis() - 8_000) / period;
        List<Document> runs = JsonHttp.get(liberty.baseUrl() + "/api/reports").jsonList();
        Map<Long, List<String>> byTick = new TreeMap<>();
        for (Document run : runs) {
            long tick = run.get("tick", Number.class).longValue();
            if (tick >= firstTick && tick <= lastCompleteTick) {
                byTick.computeIfAbsent(tick, t -> new ArrayList<>()).add(run.getString("server") + "@+"
                        + (run.get("at", Number.class).longValue() - tick * period) + "ms");
                assertTrue(run.getString("lockHolder").startsWith(run.getString("server") + "-it:"),
                        "the job ran inside the lock: " + run.toJson());
            }
        }
        figures.put("scheduled job (onBusy=SKIP): ticks observed, runs per tick", byTick.toString());
        assertTrue(byTick.size() >= 3, "the timer fired on every tick: " + byTick + " (all runs: " + runs + ")");
        for (Map.Entry<Long, List<String>> tick : byTick.entrySet()) {
            assertEquals(1, tick.getValue().size(), "tick " + tick.getKey() + " ran once, not " + tick.getValue());
        }
        for (long tick = firstTick; tick <= lastCompleteTick; tick++) {
            assertTrue(byTick.containsKey(tick), "tick " + tick + " ran: " + byTick);
        }
    }

    /**
     * TickReport: Jakarta Concurrency 3.1 runs {@code @Asynchronous(runAt = @Schedule(cron = "*&#47;5 * * * * *"))}
     * {@code @Locked(onBusy = SKIP, holdAtLeast = "PT3S")} on both servers since the applications started. This test
     * hands six ticks to one server after the other (the other one is handicapped: its calls come 1 s late and
     * skip), so that each server skips and afterwards runs again, and checks those ticks.
     */
    @Test
    @Order(3)
    void theJakartaEe11ScheduleRunsOncePerTickAndGoesOnAfterSkippedTicks() throws Exception {
        long period = 5_000;
        // From this test's own start: under the load of the earlier tests (8 blocked requests per server), a
        // server's executor may run a tick late, which Concurrency then skips; that is not what is checked here.
        long firstTick = System.currentTimeMillis() / period + 1;
        // Three phases of two ticks: Payara runs while Liberty is handicapped, then Liberty, then Payara again.
        long lastTick = 0;
        for (ServerProcess handicapped : List.of(liberty, payara, liberty)) {
            long tick = (System.currentTimeMillis() + 2_000) / period + 1; // at least 0.5 s to set the handicap
            sleepUntil(tick * period - 1_500);
            // 9 s from 1.5 s before the tick: this tick and the next, not the one after
            assertEquals(204, JsonHttp.post(handicapped.baseUrl() + "/api/ticks/handicap?seconds=9").status());
            lastTick = tick + 1;
            sleepUntil(lastTick * period + 2_500); // the handicapped call, 1 s late, has skipped and been recorded
        }

        Document ticks = JsonHttp.ok(JsonHttp.get(payara.baseUrl() + "/api/ticks"), "ticks");
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
        figures.put("EE 11 schedule: ticks, the server that ran each", runsByTick.entrySet().stream()
                .map(e -> e.getKey() - firstTick + ":" + e.getValue().stream().map(r -> r.getString("server"))
                        .collect(Collectors.joining("+")))
                .collect(Collectors.joining(" ")));

        long ticksSeen = lastTick - firstTick + 1;
        assertTrue(ticksSeen >= 6, "at least 6 ticks observed: " + ticksSeen);
        for (long tick = firstTick; tick <= lastTick; tick++) {
            assertEquals(1, runsByTick.getOrDefault(tick, List.of()).size(),
                    "tick " + tick + " ran on exactly one server: " + runsByTick.get(tick));
            for (String server : List.of("liberty", "payara")) {
                assertTrue(attempts.getOrDefault(server, Map.of()).containsKey(tick),
                        server + "'s schedule called the method at tick " + tick + " (it goes on after skips); last call of"
                                + " each server: " + lastAttempt + "; first tick checked " + firstTick);
            }
        }
        for (String server : List.of("liberty", "payara")) {
            long skipped = -1;
            long ranAfterASkip = -1;
            for (long tick = firstTick; tick <= lastTick; tick++) {
                String ranOn = runsByTick.get(tick).get(0).getString("server");
                if (!ranOn.equals(server) && skipped < 0) {
                    skipped = tick;
                } else if (ranOn.equals(server) && skipped >= 0) {
                    ranAfterASkip = tick;
                }
            }
            assertTrue(skipped >= 0 && ranAfterASkip > skipped,
                    server + " skipped a tick and ran a later one: " + runsByTick.keySet() + " " + runsByTick);
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
        for (String server : List.of("liberty", "payara")) {
            runsByTick.values().stream().map(runs -> runs.get(0)).filter(run -> run.getString("server").equals(server))
                    .findFirst().ifPresent(run -> figures.put("EE 11 schedule: " + server + " ran on thread", run.getString("thread")));
        }
    }

    @Test
    @Order(4)
    void aBadDurationInTheConfigurationFileStopsTheDeploymentWithOurMessage() throws Exception {
        Path badWar = WORK.resolve("mongolock-liberty-example-bad-lease.war");
        Files.createDirectories(WORK);
        rewriteConfig(SERVERS.resolve("mongolock-liberty-example.war"), badWar,
                "mongolock.lease-time=PT20S", "mongolock.lease-time=banana");
        long start = System.nanoTime();
        try (LibertyServer bad = new LibertyServer("liberty-bad-config", WLP,
                Path.of(System.getProperty("it.liberty.server.xml")), badWar)) {
            bad.start(environment("liberty-bad-config"));
            String log = "";
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            // CWWKZ0002E: an application failed to start; CWWKZ0001I: it started (which must not happen).
            while (System.nanoTime() < deadline && !log.contains("CWWKZ0002E") && !log.contains("CWWKZ0001I")) {
                Thread.sleep(500);
                log = bad.logText();
            }
            figures.put("bad configuration: Liberty refused the application after",
                    String.format("%.1f s", (System.nanoTime() - start) / 1e9));
            assertTrue(log.contains("CWWKZ0002E"), "the deployment failed:\n" + bad.logTail(40));
            assertTrue(!log.contains("CWWKZ0001I"), "the application must not start:\n" + bad.logTail(40));
            assertTrue(log.contains("mongolock.lease-time") && log.contains("banana"),
                    "our message names the key and the value:\n" + bad.logTail(40));
            assertNotEquals(200, JsonHttp.statusOrZero(bad.baseUrl() + "/api/info"), "nothing is served");
            String ours = log.lines().filter(line -> line.contains("banana")).findFirst().orElse("");
            System.out.println("[real servers] bad configuration, as Liberty logged it: " + ours.strip());
        }
    }

    private static void sleepUntil(long epochMillis) throws InterruptedException {
        long sleep = epochMillis - System.currentTimeMillis();
        if (sleep > 0) {
            Thread.sleep(sleep);
        }
    }

    /** A copy of {@code war} whose microprofile-config.properties has {@code from} replaced by {@code to}. */
    private static void rewriteConfig(Path war, Path copy, String from, String to) throws IOException {
        String config = "WEB-INF/classes/META-INF/microprofile-config.properties";
        try (ZipFile source = new ZipFile(war.toFile());
             ZipOutputStream target = new ZipOutputStream(Files.newOutputStream(copy))) {
            for (ZipEntry entry : java.util.Collections.list(source.entries())) {
                target.putNextEntry(new ZipEntry(entry.getName()));
                byte[] content = source.getInputStream(entry).readAllBytes();
                if (entry.getName().equals(config)) {
                    String text = new String(content, StandardCharsets.UTF_8);
                    assertTrue(text.contains(from), config + " has " + from);
                    content = text.replace(from, to).getBytes(StandardCharsets.UTF_8);
                }
                target.write(content);
                target.closeEntry();
            }
        }
    }

    @Test
    @Order(5)
    void oneServerIsLeaderAndAStepDownHandsTheLeadershipToTheOther() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Map<String, Document> views = leaderViews();
        while (views.values().stream().filter(view -> view.getBoolean("leader")).count() != 1 && System.nanoTime() < deadline) {
            Thread.sleep(200);
            views = leaderViews();
        }
        Map<String, Document> settled = views;
        ServerProcess leader = servers().stream().filter(server -> settled.get(server.name).getBoolean("leader")).findFirst()
                .orElseThrow(() -> new AssertionError("not exactly one leader of example-leader: " + settled));
        ServerProcess other = leader == liberty ? payara : liberty;
        Document lock = JsonHttp.ok(JsonHttp.get(leader.baseUrl() + "/api/locks/example-leader"), "lock");
        long term = leaderView(leader).get("term", Number.class).longValue();
        assertEquals(term, lock.get("fencingToken", Number.class).longValue(), "the term is the election lock's token");
        assertTrue(lock.getString("owner").startsWith(leader.name + ":"), lock.toJson());
        assertEquals(false, leaderView(other).getBoolean("leader"), "one leader: " + leaderViews());

        long steppedAt = System.nanoTime();
        JsonHttp.ok(JsonHttp.post(leader.baseUrl() + "/api/leader/step-down"), "step-down");
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
        figures.put("leader election: first leader, term", leader.name + ", " + term);
        figures.put("leader election: step-down to the other server's leadership", tookOverMillis + " ms (poll PT1S)");
    }

    private static Map<String, Document> leaderViews() throws Exception {
        Map<String, Document> views = new LinkedHashMap<>();
        for (ServerProcess server : servers()) {
            views.put(server.name, leaderView(server));
        }
        return views;
    }

    private static Document leaderView(ServerProcess server) throws Exception {
        return JsonHttp.ok(JsonHttp.get(server.baseUrl() + "/api/leader"), "leader");
    }

    @Test
    @Order(6)
    void readinessIsDownWhileMongoDbIsUnreachableAndUpWhenItIsBack() throws Exception {
        for (ServerProcess server : servers()) {
            assertReadiness(server, "UP", Duration.ofSeconds(30));
        }
        proxy.cut();
        long cutAt = System.nanoTime();
        try {
            for (ServerProcess server : servers()) {
                assertReadiness(server, "DOWN", Duration.ofSeconds(60));
                figures.put(server.name + " readiness DOWN after MongoDB went away",
                        String.format("%.1f s", (System.nanoTime() - cutAt) / 1e9));
            }
        } finally {
            proxy.restore();
        }
        long restoredAt = System.nanoTime();
        for (ServerProcess server : servers()) {
            assertReadiness(server, "UP", Duration.ofSeconds(60));
            figures.put(server.name + " readiness UP after MongoDB came back",
                    String.format("%.1f s", (System.nanoTime() - restoredAt) / 1e9));
        }
    }

    private static void assertReadiness(ServerProcess server, String expected, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            JsonHttp.Answer answer = JsonHttp.get(server.baseUrl() + "/health/ready");
            last = answer.status() + " " + answer.body();
            if (answer.body().startsWith("{")) {
                Document health = answer.json();
                Document check = health.getList("checks", Document.class).stream()
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
}
