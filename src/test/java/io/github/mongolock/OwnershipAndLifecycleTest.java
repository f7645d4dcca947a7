package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Who owns a hold (the caller, not the thread), hand-over between threads, and what close(),
 * interrupts and names do to held locks: the regression tests of issue 9, against the test backend.
 */
@ExtendWith(MongoBackend.class)
class OwnershipAndLifecycleTest {

    private final TestMongo mongo;
    private final List<MongoLockManager> managers = new ArrayList<>();
    private String database;

    OwnershipAndLifecycleTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void freshDatabase() {
        database = mongo.freshDatabase();
    }

    @AfterEach
    void closeManagers() {
        managers.forEach(MongoLockManager::close);
        Thread.interrupted();
    }

    private MongoLockManager node(UnaryOperator<MongoLockManager.Builder> settings) {
        MongoLockManager manager = settings.apply(MongoLockManager.builder().database(database)).build();
        managers.add(manager);
        return manager;
    }

    private MongoLockManager node() {
        return node(builder -> builder.client(mongo.client()));
    }

    @Test
    void aDetachedSessionIsNotReenteredByTheNextCallerOnTheSameThread() throws Exception {
        MongoLockManager node = node();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            LockSession first = pool.submit(() -> node.acquire("job").detach()).get(10, TimeUnit.SECONDS);
            // The next task on the same pooled thread is another caller: the lock is busy for it.
            Optional<LockSession> second = pool.submit(() -> node.tryAcquire("job")).get(10, TimeUnit.SECONDS);
            assertTrue(second.isEmpty(), "a detached hold was re-entered by an unrelated caller: " + second);
            assertEquals(1, node.inspect("job").orElseThrow().holdCount());
            first.close(); // closed from the test thread: hand-over
            Optional<LockSession> third = pool.submit(() -> node.tryAcquire("job")).get(10, TimeUnit.SECONDS);
            assertTrue(third.isPresent());
            assertEquals(first.fencingToken() + 1, third.get().fencingToken(), "a fresh grant, not a re-entry");
            third.get().close();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aBoundSessionIsReenteredOnItsThreadAndAttachMovesIt() throws Exception {
        MongoLockManager node = node();
        try (LockSession outer = node.acquire("job")) {
            try (LockSession inner = node.acquire("job")) {
                assertEquals(2, inner.holdCount());
                assertEquals(outer.fencingToken(), inner.fencingToken());
                assertEquals(outer.owner(), inner.owner());
            }
            outer.detach();
            assertTrue(node.tryAcquire("job").isEmpty(), "detached: the thread is no longer inside the hold");
            ExecutorService worker = Executors.newSingleThreadExecutor();
            try {
                int nested = worker.submit(() -> {
                    outer.attach();
                    try (LockSession inner = node.acquire("job")) {
                        return inner.holdCount();
                    }
                }).get(10, TimeUnit.SECONDS);
                assertEquals(2, nested, "attached to the worker: its nested acquire re-enters");
            } finally {
                worker.shutdownNow();
            }
            assertTrue(outer.isHeld());
        }
        assertTrue(node.inspect("job").isEmpty());
    }

    @Test
    void eachFreshAcquisitionHasItsOwnOwner() {
        MongoLockManager node = node(builder -> builder.client(mongo.client()).instanceId("web-1"));
        String firstOwner;
        try (LockSession first = node.acquire("job")) {
            firstOwner = first.owner();
            assertEquals(firstOwner, node.inspect("job").orElseThrow().owner());
            assertTrue(firstOwner.startsWith("web-1:"), firstOwner);
        }
        try (LockSession second = node.acquire("job")) {
            assertFalse(second.owner().equals(firstOwner), "owners are per acquisition: " + second.owner());
        }
    }

    /** Issue 9, item 2: a grant landing after close's sweep was released through a closed client. */
    @Test
    void closeUnderLoadLeavesNothingHeldAndCallersOnlySeeLockExceptions() throws Exception {
        MongoLockManager observer = node();
        List<Throwable> foreign = new CopyOnWriteArrayList<>();
        int leftHeld = 0;
        int rounds = 30;
        for (int round = 0; round < rounds; round++) {
            MongoLockManager closing = MongoLockManager.builder().uri(mongo.uri()).database(database)
                    .leaseTime(Duration.ofMinutes(10)).pushWakeUp(false).build();
            ExecutorService threads = Executors.newFixedThreadPool(6);
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch running = new CountDownLatch(6);
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                String name = "load-" + (t % 3);
                work.add(threads.submit(() -> {
                    running.countDown();
                    while (!stop.get()) {
                        try (LockSession session = closing.acquire(name, Duration.ofMillis(200))) {
                            Thread.onSpinWait();
                        } catch (LockException expected) {
                            if (expected.getMessage().contains("is closed")) {
                                return;
                            }
                        } catch (RuntimeException | Error other) {
                            foreign.add(other);
                            return;
                        }
                    }
                }));
            }
            running.await(10, TimeUnit.SECONDS);
            Thread.sleep(20);
            closing.close();
            stop.set(true);
            for (Future<?> each : work) {
                each.get(30, TimeUnit.SECONDS);
            }
            threads.shutdownNow();
            for (int t = 0; t < 3; t++) {
                if (observer.inspect("load-" + t).isPresent()) {
                    leftHeld++;
                }
            }
        }
        System.out.printf("[close under load] %d rounds: %d locks left held after close, %d non-LockException failures%n",
                rounds, leftHeld, foreign.size());
        assertEquals(0, foreign.size(), "callers must only see LockException subclasses; got " + foreign.size()
                + ", e.g. " + foreign.stream().map(Throwable::toString).distinct().toList());
        assertEquals(0, leftHeld, "after close() returns, no lock of that manager is held in MongoDB");
    }

    /** Issue 9, item 3. */
    @Test
    void closeOnAnInterruptedThreadStillReleases() {
        MongoLockManager observer = node();
        MongoLockManager closing = node(builder -> builder.uri(mongo.uri()));
        closing.acquire("job");
        Thread.currentThread().interrupt();
        closing.close();
        assertTrue(Thread.interrupted(), "the interrupt flag is kept");
        assertTrue(observer.inspect("job").isEmpty(), "released although the closing thread was interrupted");
    }

    /** Issue 9, item 4. */
    @Test
    void anInterruptedNestedAcquireDoesNotMarkTheOuterHoldLost() {
        List<LockEvent> events = new CopyOnWriteArrayList<>();
        MongoLockManager node = node(builder -> builder.client(mongo.client()).listener(events::add));
        LockSession outer = node.acquire("job");
        Thread.currentThread().interrupt();
        try {
            node.tryAcquire("job").ifPresent(LockSession::close);
        } catch (LockInterruptedException acceptable) {
            // refusing the nested call is fine; losing the outer hold is not
        } finally {
            Thread.interrupted();
        }
        assertTrue(outer.isHeld(), "the outer hold is still ours in MongoDB");
        assertTrue(events.stream().noneMatch(event -> event.kind() == LockEvent.Kind.LEASE_LOST), events.toString());
        outer.close();
        assertTrue(node.inspect("job").isEmpty());
    }

    /** Issue 9, item 6: a lone surrogate became U+FFFD in MongoDB, so two names were one lock. */
    @Test
    void namesMustBeWellFormedUtf16() {
        MongoLockManager node = node();
        String cut = "report-\uD83D\uDE00".substring(0, 8); // an emoji cut in half
        LockConfigurationException high = assertThrows(LockConfigurationException.class, () -> node.acquire(cut));
        assertTrue(high.getMessage().contains("index 7") && high.getMessage().contains("surrogate"), high.getMessage());
        LockConfigurationException low = assertThrows(LockConfigurationException.class,
                () -> node.tryAcquire("x\uDE00y"));
        assertTrue(low.getMessage().contains("index 1"), low.getMessage());
        assertThrows(LockConfigurationException.class, () -> node.inspect("\uD83D"));
        try (LockSession whole = node.acquire("report-\uD83D\uDE00")) {
            assertEquals("report-\uD83D\uDE00", node.inspect("report-\uD83D\uDE00").orElseThrow().name());
            assertTrue(whole.isHeld());
        }
    }

    /** Issue 9, item 8: below a millisecond the driver read the timeout as 0, that is no timeout at all. */
    @Test
    void aStoreTimeoutBelowOneMillisecondIsRefused() {
        LockConfigurationException refused = assertThrows(LockConfigurationException.class,
                () -> MongoLockManager.builder().uri(mongo.uri()).database(database)
                        .storeTimeout(Duration.ofNanos(500_000)).build());
        assertTrue(refused.getMessage().contains("PT0.0005S") && refused.getMessage().contains("1 ms"), refused.getMessage());
    }
}
