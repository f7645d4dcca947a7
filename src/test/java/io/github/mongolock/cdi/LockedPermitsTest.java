package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.Locked;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code @Locked(permits = N)}: a method run by at most N callers at once across two Weld "nodes" (issue 32). */
@ExtendWith(MongoBackend.class)
class LockedPermitsTest {

    /** Shared by both nodes' bean instances (one JVM), to count who is inside across nodes. */
    static final class Shared {
        static final AtomicInteger INSIDE = new AtomicInteger();
        static final AtomicInteger MOST_INSIDE = new AtomicInteger();
        static final AtomicInteger RUNS = new AtomicInteger();

        static void reset() {
            INSIDE.set(0);
            MOST_INSIDE.set(0);
            RUNS.set(0);
        }
    }

    @ApplicationScoped
    public static class Exports {
        @Locked(value = "export", permits = 2, waitTime = "PT60S")
        public void export() throws InterruptedException {
            int now = Shared.INSIDE.incrementAndGet();
            Shared.MOST_INSIDE.accumulateAndGet(now, Math::max);
            Thread.sleep(5);
            Shared.INSIDE.decrementAndGet();
        }

        @Locked(value = "report", permits = 1, waitTime = "PT10S")
        public void holdUntil(CountDownLatch started, CountDownLatch finish) throws InterruptedException {
            started.countDown();
            assertTrue(finish.await(30, TimeUnit.SECONDS));
        }

        @Locked(value = "report", permits = 1, onBusy = Locked.OnBusy.SKIP)
        public void skipIfNoneFree() {
            Shared.RUNS.incrementAndGet();
        }
    }

    @ApplicationScoped
    public static class BadPermits {
        @Locked(value = "export", permits = -1)
        public void negative() {
        }

        @Locked(value = "report", permits = 2, holdAtLeast = "PT1M")
        public void withMinimumHold() {
        }

        @Locked(value = {"export-{0}", "import-{0}"}, permits = 2)
        public void severalNames(String region) {
        }
    }

    private WeldContainer nodeA;
    private WeldContainer nodeB;

    @BeforeEach
    void start(TestMongo mongo) {
        Shared.reset();
        String database = mongo.freshDatabase();
        nodeA = WeldNodes.start("node-a", WeldNodes.settings(mongo, database, "mongolock.instance-id", "node-a"), Exports.class);
        nodeB = WeldNodes.start("node-b", WeldNodes.settings(mongo, database, "mongolock.instance-id", "node-b"), Exports.class);
    }

    @AfterEach
    void stop() {
        nodeA.close();
        nodeB.close();
    }

    @Test
    void atMostTheLimitRunAtOnceAcrossBothNodes() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                Exports exports = (t % 2 == 0 ? nodeA : nodeB).select(Exports.class).get();
                calls.add(pool.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        exports.export();
                    }
                    return null;
                }));
            }
            for (Future<?> call : calls) {
                call.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(Shared.MOST_INSIDE.get() <= 2, "at most 2 inside at once, saw " + Shared.MOST_INSIDE.get());
        assertEquals(2, Shared.MOST_INSIDE.get(), "the limit was reached: the calls contended");
    }

    @Test
    void aNegativeLimitAMinimumHoldOrSeveralNamesBesidePermitsStopTheDeploymentNamingEach(TestMongo mongo) {
        String report = DeploymentErrorTest.deploymentFailure(WeldNodes.settings(mongo, mongo.freshDatabase()), BadPermits.class);
        assertTrue(report.contains("MONGOLOCK-CDI-024: @Locked(permits) on " + BadPermits.class.getName()
                + ".negative() = -1 is not valid: write 0 for a lock"), report);
        assertTrue(report.contains("MONGOLOCK-CDI-025: @Locked(permits) on " + BadPermits.class.getName()
                + ".withMinimumHold() asks for a minimum hold too"), report);
        assertTrue(report.contains("MONGOLOCK-CDI-029: @Locked(permits) on " + BadPermits.class.getName()
                + ".severalNames(String) names several templates {\"export-{0}\", \"import-{0}\"}"), report);
    }

    @Test
    void skipRunsNothingWhileNoPermitIsFree() throws Exception {
        Exports onA = nodeA.select(Exports.class).get();
        Exports onB = nodeB.select(Exports.class).get();
        WeldNodes.whileHolding(onA::holdUntil, () -> {
            onB.skipIfNoneFree();
            assertEquals(0, Shared.RUNS.get(), "node B ran while node A held the only permit");
        });
        onB.skipIfNoneFree();
        assertEquals(1, Shared.RUNS.get());
    }
}
