package io.github.mongolock.core;

import static io.github.mongolock.testing.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.memory.InMemoryLockStore;
import io.github.mongolock.mongo.MongoLockStore;
import io.github.mongolock.mongo.MongoReleaseFeed;
import io.github.mongolock.testing.ForwardingLockStore;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Waiters on locks held by another manager ("machine") are woken by the change stream, or poll when there is none. */
@ExtendWith(MongoBackend.class)
class PushWakeUpTest {

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private LockCoordinator node(String label, MongoCollection<Document> collection, boolean push, RetryBackoff backoff) {
        MongoLockStore store = new MongoLockStore(collection);
        ReleaseFeed feed = push ? new MongoReleaseFeed(store.collection(), "feed-" + label) : ReleaseFeed.NONE;
        LockCoordinator coordinator = new LockCoordinator(store, label + ":" + System.nanoTime(), Duration.ofSeconds(30),
                Duration.ofSeconds(30), MonotonicClock.system(), List.of(), feed, backoff);
        closeables.add(coordinator);
        return coordinator;
    }

    /** Holder releases while the waiter is parked; returns how long after the release the waiter had the lock. */
    private static double handoffMillis(LockCoordinator holder, LockCoordinator waiter, BooleanSupplier waiterReady)
            throws Exception {
        LockSession held = holder.acquire("job");
        CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
            try (LockSession session = waiter.acquire("job", Duration.ofSeconds(30))) {
                assertEquals(held.fencingToken() + 1, session.fencingToken());
                return System.nanoTime();
            }
        });
        await(waiterReady, "the waiter is parked");
        Thread.sleep(200); // let its backoff grow
        long releasedAt = System.nanoTime();
        held.close();
        return (acquiredAt.get(30, TimeUnit.SECONDS) - releasedAt) / 1e6;
    }

    @Test
    void aReleaseOnAnotherMachineWakesTheWaiterThroughTheChangeStream(TestMongo mongo) throws Exception {
        MongoCollection<Document> locks = mongo.collection(mongo.freshDatabase(), "locks");
        // 10 s backoff: without a push the waiter could not get the lock for at least 5 s.
        RetryBackoff slow = new RetryBackoff(Duration.ofSeconds(10), Duration.ofSeconds(10));
        LockCoordinator holder = node("holder", locks, true, slow);
        LockCoordinator waiter = node("waiter", locks, true, slow);
        assertEquals(ReleaseFeed.Status.IDLE, waiter.releaseFeedStatus(), "no stream before the first remote wait");
        double first = handoffMillis(holder, waiter, () -> waiter.releaseFeedStatus() == ReleaseFeed.Status.PUSHING);
        double second = handoffMillis(holder, waiter, () -> true);
        System.out.printf("[push wake-up] backend %s: handoff to another manager %.1f ms, then %.1f ms (backoff 10 s)%n",
                mongo.kind(), first, second);
        assertTrue(first < 5_000 && second < 5_000, "woken by the change stream: " + first + " / " + second + " ms");
        assertEquals(ReleaseFeed.Status.IDLE, holder.releaseFeedStatus(), "a manager that never waited opened no stream");
    }

    @Test
    void withoutChangeStreamsWaitersFallBackToPolling() throws Exception {
        MongoServer noOplog = new MongoServer(new MemoryBackend()); // change streams refused
        noOplog.bind("127.0.0.1", 0);
        closeables.add(noOplog::shutdownNow);
        MongoClient client = MongoClients.create("mongodb://127.0.0.1:" + noOplog.getLocalAddress().getPort());
        closeables.add(client);
        MongoCollection<Document> locks = client.getDatabase("fallback").getCollection("locks");
        LockCoordinator holder = node("holder", locks, true, RetryBackoff.standard());
        LockCoordinator waiter = node("waiter", locks, true, RetryBackoff.standard());
        // This stand-in refuses with an unknown error (-1), which the feed keeps retrying with backoff:
        // only a real standalone's 40573 turns it off for good (MongoReleaseFeedTest).
        double millis = handoffMillis(holder, waiter, () -> waiter.releaseFeedStatus() == ReleaseFeed.Status.RECONNECTING);
        System.out.printf("[polling fallback] change streams refused; handoff by polling took %.1f ms%n", millis);
        assertEquals(ReleaseFeed.Status.RECONNECTING, waiter.releaseFeedStatus(), "the status tells the truth");
        assertTrue(millis < 5_000, "polling (10-500 ms backoff) still hands the lock over: " + millis + " ms");
    }

    @Test
    void theWaitersOfAQueuedManagerAskTheStoreAsOneAndTheReleaseWakesOneOfThem(TestMongo mongo) throws Exception {
        MongoCollection<Document> locks = mongo.collection(mongo.freshDatabase(), "locks");
        java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
        MongoLockStore store = new MongoLockStore(locks);
        LockStore counted = new io.github.mongolock.testing.ForwardingLockStore(store) {
            @Override
            public AcquireAttempt tryAcquire(String name, String owner, String session) {
                attempts.incrementAndGet();
                return super.tryAcquire(name, owner, session);
            }
        };
        LockCoordinator waiting = new LockCoordinator(counted, "waiting:" + System.nanoTime(), Duration.ofSeconds(30),
                Duration.ofSeconds(30), MonotonicClock.system(), List.of(),
                new MongoReleaseFeed(store.collection(), "feed-waiting"), RetryBackoff.standard());
        closeables.add(waiting);
        LockCoordinator holder = node("holder", locks, true, RetryBackoff.standard());
        LockSession held = holder.acquire("job");
        int threads = 8;
        List<CompletableFuture<Long>> waiters = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            waiters.add(CompletableFuture.supplyAsync(() -> {
                try (LockSession mine = waiting.acquire("job", Duration.ofSeconds(30))) {
                    return mine.fencingToken();
                }
            }, java.util.concurrent.Executors.newSingleThreadExecutor()));
        }
        await(() -> waiting.releaseFeedStatus() == ReleaseFeed.Status.PUSHING, "the waiting manager's feed is up");
        Thread.sleep(500); // every waiter has asked once or been told a sibling did; the ramp is over
        int before = attempts.get();
        Thread.sleep(1_500);
        int whileHeld = attempts.get() - before;
        // Polling each on its own, 8 waiters would ask every 10-500 ms; as one, at most one poll per 1-2 s.
        assertTrue(whileHeld <= 2, whileHeld + " store attempts in 1.5 s by 8 waiters of one queued manager");
        held.close();
        for (CompletableFuture<Long> waiter : waiters) {
            assertTrue(waiter.get(10, TimeUnit.SECONDS) > held.fencingToken());
        }
        System.out.printf("[quiet polls] %d attempts in 1.5 s while held elsewhere; %d in all for %d grants%n",
                whileHeld, attempts.get(), threads);
    }

    @Test
    void theBuilderWiresTheFeedAndCanTurnItOff(TestMongo mongo) {
        String database = mongo.freshDatabase();
        try (MongoLockManager pushing = MongoLockManager.builder().client(mongo.client()).database(database).build();
             MongoLockManager polling = MongoLockManager.builder().client(mongo.client()).database(database)
                     .pushWakeUp(false).build()) {
            assertEquals(ReleaseFeed.Status.IDLE, pushing.pushWakeUpStatus());
            assertEquals(ReleaseFeed.Status.UNAVAILABLE, polling.pushWakeUpStatus());
            try (LockSession held = pushing.acquire("job")) {
                assertTrue(polling.tryAcquire("job", io.github.mongolock.LockOptions.defaults()
                        .waitTime(Duration.ofMillis(200))).isEmpty());
                assertTrue(held.isHeld());
            }
        }
    }

    /**
     * The holder's release, and its pushed notice, land while the waiter is between its refused attempt and its
     * park (here: during its queue-joining call). The notice is the waiter's wake-up: it must ask the store at
     * once, not stay quiet for a whole poll period set after the notice came (the ~2 s hand-offs after a
     * 10 ms hold in benchmark case 4).
     */
    @Test
    void aNoticeThatArrivesWhileTheWaiterQueuesUpWakesItAtOnce() {
        InMemoryLockStore memory = new InMemoryLockStore();
        LockCoordinator holder = new LockCoordinator(memory, "holder:" + System.nanoTime(), Duration.ofSeconds(30),
                Duration.ofSeconds(30), MonotonicClock.system(), List.of());
        closeables.add(holder);
        LockSession held = holder.acquire("job");
        AtomicReference<ReleaseFeed.Listener> notices = new AtomicReference<>();
        ReleaseFeed pushing = alwaysPushing(notices);
        AtomicInteger attempts = new AtomicInteger();
        LockStore racing = new ForwardingLockStore(memory) {
            @Override
            public AcquireAttempt tryAcquire(String name, String owner, String session) {
                attempts.incrementAndGet();
                return super.tryAcquire(name, owner, session);
            }

            @Override
            public void joinQueue(String name, String manager) {
                super.joinQueue(name, manager);
                held.close(); // released while the waiter's queue call is under way...
                notices.get().released(name, null); // ...and pushed before that call returns
            }
        };
        // 20 s between polls while pushed: only the notice can hand the lock over within the 5 s wait.
        LockCoordinator waiter = new LockCoordinator(racing, "waiter:" + System.nanoTime(), Duration.ofSeconds(30),
                Duration.ofSeconds(30), MonotonicClock.system(), List.of(), pushing,
                new RetryBackoff(Duration.ofMillis(10), Duration.ofSeconds(20), Duration.ofSeconds(20)));
        closeables.add(waiter);
        try (LockSession mine = waiter.acquire("job", Duration.ofSeconds(5))) {
            assertEquals(held.fencingToken() + 1, mine.fencingToken());
        }
        assertEquals(2, attempts.get(), "one refused attempt, then one right after the notice");
    }

    /**
     * A caller that gave up waiting leaves its manager's quiet behind when MongoDB refuses the queue leave. The next
     * caller of that manager must still ask the store at once: the lock may well be free by then, and no notice
     * announces a release that happened while nobody of this manager waited.
     */
    @Test
    void aQuietLeftByAFailedQueueLeaveDoesNotKeepTheNextCallerFromAFreeLock() {
        InMemoryLockStore memory = new InMemoryLockStore();
        LockCoordinator holder = new LockCoordinator(memory, "holder:" + System.nanoTime(), Duration.ofSeconds(30),
                Duration.ofSeconds(30), MonotonicClock.system(), List.of());
        closeables.add(holder);
        LockSession held = holder.acquire("job");
        LockStore leaveRefused = new ForwardingLockStore(memory) {
            @Override
            public void leaveQueue(String name, String manager) {
                throw new LockStoreException("MongoDB is unreachable (scripted)", null, false);
            }
        };
        // 20 s between polls while pushed: only an attempt of its own can give the second caller the lock in 5 s.
        LockCoordinator waiter = new LockCoordinator(leaveRefused, "waiter:" + System.nanoTime(), Duration.ofSeconds(30),
                Duration.ofSeconds(30), MonotonicClock.system(), List.of(), alwaysPushing(new AtomicReference<>()),
                new RetryBackoff(Duration.ofMillis(10), Duration.ofSeconds(20), Duration.ofSeconds(20)));
        closeables.add(waiter);
        assertThrows(LockTimeoutException.class, () -> waiter.acquire("job", Duration.ofMillis(300)));
        held.close(); // free now, and nobody of the waiter's manager waits for a notice
        try (LockSession mine = waiter.acquire("job", Duration.ofSeconds(5))) {
            assertEquals(held.fencingToken() + 1, mine.fencingToken());
        }
    }

    /** A feed that says it is pushing and delivers nothing by itself: the test plays the notices to {@code listener}. */
    private static ReleaseFeed alwaysPushing(AtomicReference<ReleaseFeed.Listener> listener) {
        return new ReleaseFeed() {
            @Override
            public void start(Listener started) {
                listener.set(started);
            }

            @Override
            public Status status() {
                return Status.PUSHING;
            }

            @Override
            public void close() {
            }
        };
    }
}
