package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Leased semaphores through the public API, with several managers as on several machines (issue 32, part 1). */
@ExtendWith(MongoBackend.class)
class PermitsTest {

    private final TestMongo mongo;

    PermitsTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    private MongoLockManager manager(MongoClient client, String database, String id, Duration lease) {
        return MongoLockManager.builder().client(client).database(database).instanceId(id).leaseTime(lease).build();
    }

    @Test
    void neverMoreHoldersThanTheLimitAcrossManagersAndEveryTokenIsNew() throws Exception {
        String database = mongo.freshDatabase();
        int limit = 2;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        Set<Long> tokens = ConcurrentHashMap.newKeySet();
        AtomicInteger grants = new AtomicInteger();
        List<MongoLockManager> managers = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(9);
        try {
            for (int m = 0; m < 3; m++) {
                managers.add(manager(mongo.client(), database, "node-" + m, Duration.ofSeconds(5)));
            }
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 9; t++) {
                Permits exports = managers.get(t % 3).permits("export", limit);
                done.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < 15; i++) {
                        try (PermitHold hold = exports.acquire(1, LockOptions.defaults().waitTime(Duration.ofSeconds(30)))) {
                            int now = inside.incrementAndGet();
                            most.accumulateAndGet(now, Math::max);
                            assertTrue(tokens.add(hold.fencingToken()), "token " + hold.fencingToken() + " granted twice");
                            assertTrue(hold.isHeld());
                            Thread.sleep(2);
                            inside.decrementAndGet();
                            grants.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : done) {
                future.get(120, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
            managers.forEach(MongoLockManager::close);
        }
        assertEquals(135, grants.get());
        assertTrue(most.get() <= limit, "at most " + limit + " holders at once, saw " + most.get());
        assertEquals(limit, most.get(), "the limit was reached: the test contended");
    }

    @Test
    void aHoldOfSeveralPermitsIsAllOrNothingAndGivesBackExactlyThem() {
        String database = mongo.freshDatabase();
        try (MongoLockManager node = manager(mongo.client(), database, "node", Duration.ofSeconds(5))) {
            Permits exports = node.permits("export", 3);
            try (PermitHold two = exports.acquire(2, LockOptions.defaults())) {
                assertEquals(2, two.permits());
                assertTrue(exports.tryAcquire(2, LockOptions.defaults().waitTime(Duration.ZERO)).isEmpty(), "only one is free");
                try (PermitHold one = exports.tryAcquire().orElseThrow()) {
                    assertTrue(one.fencingToken() > two.fencingToken());
                    assertTrue(exports.tryAcquire().isEmpty());
                }
            }
            try (PermitHold all = exports.acquire(3, LockOptions.defaults().waitTime(Duration.ZERO))) {
                assertTrue(all.isHeld());
            }
        }
    }

    @Test
    void badArgumentsAndAnotherLimitAreRefusedNamingTheValues() {
        String database = mongo.freshDatabase();
        try (MongoLockManager a = manager(mongo.client(), database, "a", Duration.ofSeconds(5));
             MongoLockManager b = manager(mongo.client(), database, "b", Duration.ofSeconds(5))) {
            LockConfigurationException noPermits = assertThrows(LockConfigurationException.class, () -> a.permits("export", 0));
            assertTrue(noPermits.getMessage().contains("limit of 0"), noPermits.getMessage());
            LockConfigurationException tooMany = assertThrows(LockConfigurationException.class,
                    () -> a.permits("export", 3).acquire(4, LockOptions.defaults()));
            assertTrue(tooMany.getMessage().contains("Asked for 4") && tooMany.getMessage().contains("1 to 3"), tooMany.getMessage());
            try (PermitHold held = a.permits("export", 3).acquire()) {
                LockConfigurationException other = assertThrows(LockConfigurationException.class,
                        () -> b.permits("export", 5).tryAcquire());
                assertTrue(other.getMessage().contains("has 3 permits") && other.getMessage().contains("limit of 5"),
                        other.getMessage());
                assertTrue(held.isHeld());
            }
        }
    }

    @Test
    void aCrashedHoldersPermitsAreGrantedAfterItsLeaseAndItLearnsItLostThem() throws Exception {
        String database = mongo.freshDatabase();
        Duration lease = Duration.ofSeconds(1);
        MongoClient doomed = MongoClients.create(mongo.uri());
        CountDownLatch lost = new CountDownLatch(1);
        try (MongoLockManager crashing = manager(doomed, database, "crashing", lease);
             MongoLockManager waiter = manager(mongo.client(), database, "waiter", lease)) {
            PermitHold held = crashing.permits("export", 2).acquire(2, LockOptions.defaults());
            held.onLeaseLost(lost::countDown);
            assertTrue(waiter.permits("export", 2).tryAcquire().isEmpty(), "both permits are held");
            doomed.close(); // the holder's machine is gone from MongoDB's view: no renewal reaches it any more
            long start = System.nanoTime();
            try (PermitHold taken = waiter.permits("export", 2).acquire(2, LockOptions.defaults().waitTime(Duration.ofSeconds(10)))) {
                long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(taken.fencingToken() > held.fencingToken());
                assertTrue(waitedMs >= 900, "not before the holder's lease could have ended: " + waitedMs + " ms");
                assertTrue(lost.await(5, TimeUnit.SECONDS), "the crashed holder's loss action ran");
                assertFalse(held.isHeld(), "the old holder no longer believes");
                assertThrows(LockLostException.class, held::close);
            }
        }
    }

    @Test
    void withInterruptTheHoldingThreadIsInterruptedWhenItsPermitsAreLost() throws Exception {
        String database = mongo.freshDatabase();
        MongoClient doomed = MongoClients.create(mongo.uri());
        CountDownLatch holding = new CountDownLatch(1);
        try (MongoLockManager cut = manager(doomed, database, "cut-off", Duration.ofSeconds(1))) {
            Permits exports = cut.permits("export", 1);
            CompletableFuture<String> worker = CompletableFuture.supplyAsync(() -> {
                try (PermitHold hold = exports.acquire(1, LockOptions.defaults().onLeaseLost(OnLeaseLost.INTERRUPT))) {
                    holding.countDown();
                    Thread.sleep(20_000);
                    return "slept on";
                } catch (InterruptedException interrupted) {
                    return "interrupted";
                } catch (LockLostException lost) {
                    return "interrupted"; // the close after the loss reports it too
                }
            });
            assertTrue(holding.await(10, TimeUnit.SECONDS));
            doomed.close(); // no renewal reaches MongoDB any more: the lease cannot be confirmed
            assertEquals("interrupted", worker.get(15, TimeUnit.SECONDS));
        }
    }

    @Test
    void aMinimumHoldIsRefusedForPermitsNamingTheValue() {
        String database = mongo.freshDatabase();
        try (MongoLockManager node = manager(mongo.client(), database, "node", Duration.ofSeconds(5))) {
            LockConfigurationException refused = assertThrows(LockConfigurationException.class, () -> node.permits("export", 2)
                    .acquire(1, LockOptions.defaults().holdAtLeast(Duration.ofMinutes(5))));
            assertTrue(refused.getMessage().contains("holdAtLeast PT5M") && refused.getMessage().contains("locks only"),
                    refused.getMessage());
            assertEquals(0, mongo.client().getDatabase(database).getCollection("locks")
                    .countDocuments(new Document("_id.mongolock", "permits")), "nothing was written");
        }
    }

    @Test
    void aTryAcquireThatFindsNoneFreeWritesNothingAndReturnsEmpty() {
        String database = mongo.freshDatabase();
        try (MongoLockManager node = manager(mongo.client(), database, "node", Duration.ofSeconds(5))) {
            Permits one = node.permits("nightly", 1);
            try (PermitHold held = one.acquire()) {
                Optional<PermitHold> second = one.tryAcquire();
                assertTrue(second.isEmpty(), "not re-entrant: the second acquire wants a permit of its own");
                assertTrue(held.isHeld());
            }
        }
    }
}
