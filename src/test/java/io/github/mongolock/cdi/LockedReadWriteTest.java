package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockUpgradeException;
import io.github.mongolock.Locked;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
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

/** {@code @Locked(access = READ | WRITE)}: a read-write lock across two Weld "nodes". */
@ExtendWith(MongoBackend.class)
class LockedReadWriteTest {

    /** Shared by both nodes' bean instances (one JVM). */
    static final class Shared {
        static final AtomicInteger READERS = new AtomicInteger();
        static final AtomicInteger WRITERS = new AtomicInteger();
        static final AtomicInteger MOST_READERS = new AtomicInteger();
        static final AtomicInteger VIOLATIONS = new AtomicInteger();
        static final AtomicInteger RUNS = new AtomicInteger();

        static void reset() {
            READERS.set(0);
            WRITERS.set(0);
            MOST_READERS.set(0);
            VIOLATIONS.set(0);
            RUNS.set(0);
        }
    }

    @ApplicationScoped
    public static class Inner {
        @Locked(value = "catalog", access = Locked.Access.READ, waitTime = "PT0S")
        public String nestedRead() {
            return "ran";
        }

        @Locked(value = "catalog", access = Locked.Access.WRITE, waitTime = "PT0S")
        public void nestedWrite() {
        }
    }

    @ApplicationScoped
    public static class Catalog {
        @Inject
        Inner inner;

        @Locked(value = "catalog", access = Locked.Access.READ, waitTime = "PT60S")
        public void read() throws InterruptedException {
            int now = Shared.READERS.incrementAndGet();
            Shared.MOST_READERS.accumulateAndGet(now, Math::max);
            if (Shared.WRITERS.get() != 0) {
                Shared.VIOLATIONS.incrementAndGet();
            }
            Thread.sleep(20);
            Shared.READERS.decrementAndGet();
        }

        @Locked(value = "catalog", access = Locked.Access.WRITE, waitTime = "PT60S")
        public void write() throws InterruptedException {
            if (Shared.WRITERS.incrementAndGet() != 1 || Shared.READERS.get() != 0) {
                Shared.VIOLATIONS.incrementAndGet();
            }
            Thread.sleep(2);
            Shared.WRITERS.decrementAndGet();
        }

        @Locked(value = "catalog", access = Locked.Access.READ, waitTime = "PT10S")
        public String readThenNested(CountDownLatch started, CountDownLatch go) throws InterruptedException {
            started.countDown();
            assertTrue(go.await(30, TimeUnit.SECONDS));
            return inner.nestedRead();
        }

        @Locked(value = "catalog", access = Locked.Access.READ, waitTime = "PT10S")
        public void readThenWrite() {
            inner.nestedWrite();
        }

        @Locked(value = "catalog", access = Locked.Access.WRITE, waitTime = "PT10S")
        public void writeUntil(CountDownLatch started, CountDownLatch finish) throws InterruptedException {
            started.countDown();
            assertTrue(finish.await(30, TimeUnit.SECONDS));
        }

        /** Exclusive by its annotation, READ by the nodes' configuration (.../Locked/access). */
        @Locked(value = "catalog", onBusy = Locked.OnBusy.SKIP)
        public void readOrSkip() {
            Shared.RUNS.incrementAndGet();
        }
    }

    @ApplicationScoped
    public static class BadAccess {
        @Locked(value = "catalog", access = Locked.Access.READ, permits = 2)
        public void withPermits() {
        }

        @Locked(value = {"catalog-{0}", "prices-{0}"}, access = Locked.Access.WRITE)
        public void severalNames(String region) {
        }

        @Locked(value = "catalog", access = Locked.Access.WRITE, holdAtLeast = "PT1M")
        public void withMinimumHold() {
        }

        @Locked(value = "catalog", access = Locked.Access.READ)
        public CompletionStage<String> asynchronous() {
            return null;
        }

        @Locked(value = "catalog")
        public void badOverride() {
        }
    }

    private WeldContainer nodeA;
    private WeldContainer nodeB;

    @BeforeEach
    void start(TestMongo mongo) {
        Shared.reset();
        String database = mongo.freshDatabase();
        String override = Catalog.class.getName() + "/readOrSkip/Locked/access";
        nodeA = WeldNodes.start("node-a", WeldNodes.settings(mongo, database, "mongolock.instance-id", "node-a",
                override, "READ"), Catalog.class, Inner.class);
        nodeB = WeldNodes.start("node-b", WeldNodes.settings(mongo, database, "mongolock.instance-id", "node-b",
                override, "read"), Catalog.class, Inner.class);
    }

    @AfterEach
    void stop() {
        nodeA.close();
        nodeB.close();
    }

    @Test
    void readersShareAndWritersExcludeAcrossBothNodes() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                Catalog catalog = (t % 2 == 0 ? nodeA : nodeB).select(Catalog.class).get();
                boolean writer = t >= 4;
                calls.add(pool.submit(() -> {
                    for (int i = 0; i < 8; i++) {
                        if (writer) {
                            catalog.write();
                        } else {
                            catalog.read();
                        }
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
        assertEquals(0, Shared.VIOLATIONS.get(), "a writer was inside with a reader or another writer");
        assertTrue(Shared.MOST_READERS.get() >= 2, "readers shared the lock, most at once " + Shared.MOST_READERS.get());
    }

    @Test
    void aNestedReadInsideAReadReEntersWhileAWriterWaits() throws Exception {
        Catalog onA = nodeA.select(Catalog.class).get();
        Catalog onB = nodeB.select(Catalog.class).get();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<String> reading = pool.submit(() -> onA.readThenNested(started, go));
            assertTrue(started.await(10, TimeUnit.SECONDS));
            Future<?> writing = pool.submit(() -> {
                onB.write();
                return null;
            });
            Thread.sleep(500); // the writer queues: a new read (not a re-entry) would now be refused at once
            go.countDown();
            assertEquals("ran", reading.get(10, TimeUnit.SECONDS));
            writing.get(30, TimeUnit.SECONDS);
        } finally {
            go.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void aNestedWriteInsideAReadIsRefusedAsAnUpgrade() {
        Catalog onA = nodeA.select(Catalog.class).get();
        assertThrows(LockUpgradeException.class, onA::readThenWrite);
        assertThrows(LockUpgradeException.class, onA::readThenWrite, "the same again: nothing was left held");
        nodeB.select(Inner.class).get().nestedWrite(); // write is free on the other node: the read was given back
    }

    @Test
    void theConfigOverrideMakesAMethodARead() throws Exception {
        Catalog onA = nodeA.select(Catalog.class).get();
        Catalog onB = nodeB.select(Catalog.class).get();
        onB.readOrSkip();
        assertEquals(1, Shared.RUNS.get());
        WeldNodes.whileHolding(onA::writeUntil, () -> {
            onB.readOrSkip();
            assertEquals(1, Shared.RUNS.get(), "node B read while node A held write (an exclusive lock would not be busy)");
        });
        onB.readOrSkip();
        assertEquals(2, Shared.RUNS.get());
    }

    @Test
    void accessBesidePermitsSeveralNamesAMinimumHoldOrAStageStopsTheDeploymentNamingEach(TestMongo mongo) {
        String bad = BadAccess.class.getName();
        String report = DeploymentErrorTest.deploymentFailure(WeldNodes.settings(mongo, mongo.freshDatabase(),
                bad + "/badOverride/Locked/access", "SHARED"), BadAccess.class);
        assertTrue(report.contains("MONGOLOCK-CDI-030: @Locked(access = READ) on " + bad
                + ".withPermits() asks for permits = 2 too"), report);
        assertTrue(report.contains("MONGOLOCK-CDI-031: @Locked(access = WRITE) on " + bad
                + ".severalNames(String) names several templates {\"catalog-{0}\", \"prices-{0}\"}"), report);
        assertTrue(report.contains("MONGOLOCK-CDI-032: @Locked(access = WRITE) on " + bad
                + ".withMinimumHold() asks for a minimum hold too"), report);
        assertTrue(report.contains("MONGOLOCK-CDI-033: @Locked(access = READ) on " + bad
                + ".asynchronous() returns java.util.concurrent.CompletionStage<java.lang.String>"), report);
        assertTrue(report.contains("MONGOLOCK-CDI-034: " + bad + "/badOverride/Locked/access = \"SHARED\" is not valid"), report);
    }

    /** The build-compatible extension's path (Quarkus): the same checks, through MongoLockConfiguration.operations(). */
    @Test
    void theBuildCompatibleExtensionsRegistrationReportsTheSameProblems(TestMongo mongo) {
        String bad = BadAccess.class.getName();
        List<String> problems = new ArrayList<>();
        ConfigReader config = ConfigReader.whileBuilding(WeldNodes.config(WeldNodes.settings(mongo, mongo.freshDatabase(),
                bad + "/badOverride/Locked/access", "SHARED")));
        MongoLockConfiguration.read(config, problems).operations().registerAll(BadAccess.class, problems);
        String all = String.join("\n", problems);
        for (String code : List.of("030", "031", "032", "033", "034")) {
            assertTrue(all.contains("MONGOLOCK-CDI-" + code + ": "), code + " missing: " + all);
        }
        List<String> fine = new ArrayList<>();
        LockedOperations operations = MongoLockConfiguration.read(ConfigReader.whileBuilding(WeldNodes.config(
                WeldNodes.settings(mongo, mongo.freshDatabase()))), fine).operations();
        operations.registerAll(Catalog.class, fine);
        assertEquals(List.of(), fine);
        java.lang.reflect.Method read = java.util.Arrays.stream(Catalog.class.getMethods())
                .filter(method -> method.getName().equals("read")).findFirst().orElseThrow();
        assertEquals(Locked.Access.READ, operations.find(Catalog.class, read).orElseThrow().access());
    }
}
