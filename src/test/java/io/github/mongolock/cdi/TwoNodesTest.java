package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockTimeoutException;
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

/** Two Weld containers ("nodes"), each with its own LockManager, on one MongoDB database exclude each other. */
@ExtendWith(MongoBackend.class)
class TwoNodesTest {

    /** Shared by both nodes' bean instances (one JVM), to see overlaps across nodes. */
    static final class Shared {
        static final AtomicInteger INSIDE = new AtomicInteger();
        static final AtomicInteger MOST_INSIDE = new AtomicInteger();
        static final AtomicInteger RUNS = new AtomicInteger();
        static long unsafeCounter;

        static void reset() {
            INSIDE.set(0);
            MOST_INSIDE.set(0);
            RUNS.set(0);
            unsafeCounter = 0;
        }
    }

    @ApplicationScoped
    public static class Job {
        @Locked(value = "shared-job", waitTime = "PT60S")
        public void work() {
            int now = Shared.INSIDE.incrementAndGet();
            Shared.MOST_INSIDE.accumulateAndGet(now, Math::max);
            long read = Shared.unsafeCounter;
            Thread.yield();
            Shared.unsafeCounter = read + 1;
            Shared.INSIDE.decrementAndGet();
        }

        @Locked(value = "nightly", waitTime = "PT10S")
        public void holdUntil(CountDownLatch started, CountDownLatch finish) throws InterruptedException {
            started.countDown();
            assertTrue(finish.await(30, TimeUnit.SECONDS));
        }

        @Locked(value = "nightly", onBusy = Locked.OnBusy.SKIP, waitTime = "PT0S")
        public void skipIfBusy() {
            Shared.RUNS.incrementAndGet();
        }

        @Locked(value = "nightly", waitTime = "PT0.5S")
        public void failIfBusy() {
            Shared.RUNS.incrementAndGet();
        }
    }

    private WeldContainer nodeA;
    private WeldContainer nodeB;

    @BeforeEach
    void start(TestMongo mongo) {
        Shared.reset();
        String database = mongo.freshDatabase();
        nodeA = WeldNodes.start("node-a", WeldNodes.settings(mongo, database, "mongolock.instance-id", "node-a"), Job.class);
        nodeB = WeldNodes.start("node-b", WeldNodes.settings(mongo, database, "mongolock.instance-id", "node-b"), Job.class);
    }

    @AfterEach
    void stop() {
        nodeA.close();
        nodeB.close();
    }

    @Test
    void whileOneNodeHoldsTheLockTheOtherSkipsOrFails() throws Exception {
        Job jobA = nodeA.select(Job.class).get();
        Job jobB = nodeB.select(Job.class).get();
        WeldNodes.whileHolding(jobA::holdUntil, () -> {
            LockInfo seenFromB = nodeB.select(LockManager.class).get().inspect("nightly").orElseThrow();
            assertTrue(seenFromB.owner().startsWith("node-a:"), seenFromB.owner());

            jobB.skipIfBusy();
            LockTimeoutException timeout = assertThrows(LockTimeoutException.class, jobB::failIfBusy);
            assertTrue(timeout.getMessage().contains("held by node-a:"), timeout.getMessage());
            assertEquals(0, Shared.RUNS.get(), "node B ran while node A held the lock");
        });
        jobB.skipIfBusy();
        jobB.failIfBusy();
        assertEquals(2, Shared.RUNS.get());
    }

    @Test
    void callsOnBothNodesNeverOverlap() throws Exception {
        int threadsPerNode = 2;
        int calls = 15;
        ExecutorService pool = Executors.newFixedThreadPool(2 * threadsPerNode);
        long start = System.nanoTime();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (WeldContainer node : List.of(nodeA, nodeB)) {
                Job job = node.select(Job.class).get();
                for (int t = 0; t < threadsPerNode; t++) {
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < calls; i++) {
                            job.work();
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> future : done) {
                future.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        int expected = 2 * threadsPerNode * calls;
        System.out.println("[mongolock tests] two nodes, " + 2 * threadsPerNode + " threads: counter " + Shared.unsafeCounter
                + " of " + expected + ", at most " + Shared.MOST_INSIDE.get() + " inside at once, "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
        assertEquals(expected, Shared.unsafeCounter);
        assertEquals(1, Shared.MOST_INSIDE.get());
    }
}
