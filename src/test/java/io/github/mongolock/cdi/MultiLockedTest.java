package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.Locked;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code @Locked} with several name templates (a multi-lock) on two Weld nodes sharing one MongoDB database, and its
 * checks at deployment, by the portable extension and by the resolution the build-compatible one runs.
 */
@ExtendWith(MongoBackend.class)
class MultiLockedTest {

    /** Balances shared by both nodes' beans (one JVM), updated without synchronisation: only the locks protect them. */
    static final long[] BALANCES = new long[3];

    @ApplicationScoped
    public static class Transfers {
        @Locked(value = {"account-{0}", "account-{1}"}, waitTime = "PT20S")
        public void transfer(int from, int to, long cents) {
            long debit = BALANCES[from];
            long credit = BALANCES[to];
            Thread.yield();
            BALANCES[from] = debit - cents;
            BALANCES[to] = (from == to ? debit - cents : credit) + cents;
        }

        @Locked(value = {"account-{0}", "account-{1}"}, onBusy = Locked.OnBusy.SKIP)
        public void transferIfFree(int from, int to, AtomicReference<String> ran) {
            ran.set(from + "->" + to);
        }

        @Locked(value = {"account-{0}", "account-{1}"}, waitTime = "PT0.3S")
        public void transferOrFail(int from, int to) {
        }
    }

    private WeldContainer nodeA;
    private WeldContainer nodeB;

    @BeforeEach
    void start(TestMongo mongo) {
        java.util.Arrays.fill(BALANCES, 1000);
        String database = mongo.freshDatabase();
        nodeA = WeldNodes.start("multi-a", WeldNodes.settings(mongo, database, "mongolock.instance-id", "node-a"), Transfers.class);
        nodeB = WeldNodes.start("multi-b", WeldNodes.settings(mongo, database, "mongolock.instance-id", "node-b"), Transfers.class);
    }

    @AfterEach
    void stop() {
        nodeA.close();
        nodeB.close();
    }

    @Test
    void transfersInOppositeDirectionsOnTwoNodesNeitherDeadlockNorOverlap() throws Exception {
        Transfers a = nodeA.select(Transfers.class).get();
        Transfers b = nodeB.select(Transfers.class).get();
        int rounds = 25;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        long start = System.nanoTime();
        try {
            List<Future<?>> done = new ArrayList<>();
            done.add(pool.submit(() -> {
                for (int i = 0; i < rounds; i++) {
                    a.transfer(0, 1, 1);
                }
                return null;
            }));
            done.add(pool.submit(() -> {
                for (int i = 0; i < rounds; i++) {
                    b.transfer(1, 0, 2);
                }
                return null;
            }));
            for (Future<?> future : done) {
                future.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        System.out.println("[mongolock tests] @Locked multi-lock: " + 2 * rounds + " transfers both ways on two nodes in "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
        assertEquals(1000 - rounds + 2 * rounds, BALANCES[0]);
        assertEquals(1000 + rounds - 2 * rounds, BALANCES[1]);
        LockManager locks = nodeA.select(LockManager.class).get();
        assertTrue(locks.inspect("account-0").isEmpty() && locks.inspect("account-1").isEmpty());
    }

    @Test
    void aTransferToTheSameAccountTakesOneLock() {
        nodeA.select(Transfers.class).get().transfer(2, 2, 5);
        assertEquals(1000, BALANCES[2]);
    }

    @Test
    void aBusyPartSkipsOrFailsTheCallAndNothingStaysHeld() {
        Transfers a = nodeA.select(Transfers.class).get();
        LockManager locksB = nodeB.select(LockManager.class).get();
        LockManager locksA = nodeA.select(LockManager.class).get();
        try (LockSession held = locksB.acquire("account-1", LockOptions.defaults())) {
            AtomicReference<String> ran = new AtomicReference<>();
            a.transferIfFree(0, 1, ran);
            assertNull(ran.get(), "skipped: account-1 is busy");
            LockTimeoutException timeout = assertThrows(LockTimeoutException.class, () -> a.transferOrFail(0, 1));
            assertEquals("account-1", timeout.lockName());
            assertTrue(timeout.getMessage().contains("Nothing of the set is held"), timeout.getMessage());
            assertTrue(locksA.inspect("account-0").isEmpty(), "account-0 was released when account-1 stayed busy");
        }
        AtomicReference<String> ran = new AtomicReference<>();
        a.transferIfFree(0, 1, ran);
        assertEquals("0->1", ran.get());
    }

    /** Broken on purpose: each method is one deployment problem. */
    @ApplicationScoped
    public static class BrokenSets {
        @Locked({})
        public void none() {
        }

        @Locked({"account-{0}", ""})
        public void emptyAmongSeveral(String account) {
        }

        @Locked({"account-{0}", "account-{0}"})
        public void twice(String account) {
        }

        @Locked({"account-{0}", "account-{2}"})
        public void outOfRange(String from, String to) {
        }
    }

    private static final String BROKEN = BrokenSets.class.getName();
    private static final List<String> EXPECTED = List.of(
            "MONGOLOCK-CDI-026: @Locked({}) on " + BROKEN + ".none() names no lock: give one name template, several for a"
                    + " multi-lock (e.g. @Locked({\"account-{0}\", \"account-{1}\"})), or leave value out for <class>.<method>.",
            "MONGOLOCK-CDI-027: @Locked({\"account-{0}\", \"\"}) on " + BROKEN + ".emptyAmongSeveral(String) has an empty"
                    + " name template among several: the default name <class>.<method> is for a single lock only."
                    + " Write each lock's name template.",
            "MONGOLOCK-CDI-028: @Locked({\"account-{0}\", \"account-{0}\"}) on " + BROKEN + ".twice(String) names the"
                    + " template \"account-{0}\" twice, which always makes the same lock: list each template once.",
            "MONGOLOCK-CDI-003: @Locked(\"account-{2}\") on " + BROKEN + ".outOfRange(String, String) refers to argument {2}");

    @Test
    void badSetsStopTheDeploymentWithOneNumberedMessageEach(TestMongo mongo) {
        String report = DeploymentErrorTest.deploymentFailure(WeldNodes.settings(mongo, "multi"), BrokenSets.class);
        for (String message : EXPECTED) {
            assertTrue(report.contains(message), "missing: " + message + "\nin:\n" + report);
        }
    }

    /** What the build-compatible extension (Quarkus) runs for each bean class: the same checks, at build time. */
    @Test
    void theBuildTimeResolutionReportsTheSameProblems() {
        LockedOperations operations = new LockedOperations(ConfigReader.whileBuilding(WeldNodes.config(Map.of())));
        List<String> problems = new ArrayList<>();
        operations.registerAll(BrokenSets.class, problems);
        assertEquals(EXPECTED.size(), problems.size(), String.join("\n", problems));
        for (String message : EXPECTED) {
            assertTrue(problems.stream().anyMatch(problem -> problem.startsWith(message)), "missing: " + message + "\nin:\n" + problems);
        }
        problems.clear();
        operations.registerAll(Transfers.class, problems);
        assertEquals(List.of(), problems);
        LockedOperation transfer = operations.find(Transfers.class, transferMethod()).orElseThrow();
        assertEquals(2, transfer.names().size());
        assertEquals(java.util.Optional.of("account-{0}, account-{1}"), transfer.options().metricsGroup());
        assertEquals(java.util.Optional.of(Duration.ofSeconds(20)), transfer.options().waitTime());
        assertThrows(LockConfigurationException.class, () -> operations.get(BrokenSets.class, BrokenSets.class.getMethod("none")));
    }

    /** The override keys name the method, not the locks: wait-time is the set's, lease-time every part's. */
    @Test
    void overrideKeysApplyToTheWholeSet() {
        String method = Transfers.class.getName() + "/transfer/Locked/";
        LockedOperations operations = new LockedOperations(ConfigReader.whileBuilding(WeldNodes.config(
                Map.of(method + "wait-time", "PT1S", method + "lease-time", "PT45S", "Locked/hold-at-least", "PT0.5S"))));
        List<String> problems = new ArrayList<>();
        operations.registerAll(Transfers.class, problems);
        assertEquals(List.of(), problems);
        LockOptions options = operations.find(Transfers.class, transferMethod()).orElseThrow().options();
        assertEquals(java.util.Optional.of(Duration.ofSeconds(1)), options.waitTime());
        assertEquals(java.util.Optional.of(Duration.ofSeconds(45)), options.leaseTime());
        assertEquals(Duration.ofMillis(500), options.holdAtLeast());
    }

    private static java.lang.reflect.Method transferMethod() {
        try {
            return Transfers.class.getMethod("transfer", int.class, int.class, long.class);
        } catch (NoSuchMethodException missing) {
            throw new AssertionError(missing);
        }
    }
}
