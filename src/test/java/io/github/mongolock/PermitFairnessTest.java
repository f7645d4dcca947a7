package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Semaphores are fair across managers as locks are (docs/permits.md#fairness): a waiting manager queues in the
 * semaphore's document and the next free permit is its, a queued manager that is gone stalls the semaphore once for the
 * turn grace, and a head that waits for more permits than are free keeps its turn.
 */
@ExtendWith(MongoBackend.class)
class PermitFairnessTest {

    private final TestMongo mongo;

    PermitFairnessTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    private MongoLockManager manager(String database, String id) {
        return MongoLockManager.builder().client(mongo.client()).database(database).instanceId(id)
                .leaseTime(Duration.ofSeconds(5)).build();
    }

    private static LockOptions waitingUpTo(Duration wait) {
        return LockOptions.defaults().waitTime(wait);
    }

    /**
     * Four callers of one manager take the only permit in turns, each release waking a sibling at once; a caller of
     * another manager, polling at most every 500 ms, would find it taken again each time. Queued, it is next: the
     * grants that went to the busy manager are counted from the moment the patient manager's place in the queue is seen
     * in the semaphore's document, not from its call (before the join lands, the busy manager may rightly be served:
     * on a loaded machine its 20 ms holds went on for 7 grants during the patient one's first attempt and join).
     */
    @Test
    void aWaitingManagerIsNotStarvedByAnotherWhoseCallersTakeThePermitInTurns() throws Exception {
        String database = mongo.freshDatabase();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger busyGrants = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try (MongoLockManager busy = manager(database, "busy"); MongoLockManager patient = manager(database, "patient")) {
            Permits hot = busy.permits("hot", 1);
            List<Future<?>> loops = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                loops.add(threads.submit(() -> {
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15); // bounded, whatever happens
                    while (!stop.get() && System.nanoTime() < until) {
                        Optional<PermitHold> hold = hot.tryAcquire(1, waitingUpTo(Duration.ofSeconds(2)));
                        if (hold.isPresent()) {
                            try (PermitHold held = hold.get()) {
                                busyGrants.incrementAndGet();
                                Thread.sleep(20);
                            }
                        }
                    }
                    return null;
                }));
            }
            MongoCollection<Document> locks = mongo.client().getDatabase(database).getCollection("locks");
            Document id = new Document("mongolock", "permits").append("name", "hot");
            int most = 0;
            int total = 0;
            for (int round = 0; round < 5; round++) {
                // Start right after one of the busy manager's grants, so that the permit is held (20 ms) when we ask.
                int seen = busyGrants.get();
                while (busyGrants.get() == seen) {
                    Thread.sleep(1);
                }
                int before = busyGrants.get();
                AtomicInteger atGrant = new AtomicInteger();
                CompletableFuture<Optional<PermitHold>> asked = CompletableFuture.supplyAsync(() -> {
                    Optional<PermitHold> got = patient.permits("hot", 1).tryAcquire(1, waitingUpTo(Duration.ofSeconds(3)));
                    atGrant.set(busyGrants.get());
                    return got;
                });
                int atJoin = -1; // the busy manager's grants when the patient one was first seen queued
                while (atJoin < 0 && !asked.isDone()) {
                    Document semaphore = locks.find(new Document("_id", id)).first();
                    if (semaphore != null && semaphore.getList("queue", String.class, List.of()).stream()
                            .anyMatch(manager -> manager.startsWith("patient:"))) {
                        atJoin = busyGrants.get();
                    }
                }
                Optional<PermitHold> got = asked.get(10, TimeUnit.SECONDS);
                assertTrue(got.isPresent(), "round " + round + ": the other manager's waiter got the permit within 3 s");
                got.get().close();
                // Never seen queued (granted at once, or before this test saw the join; or it never joined): from its call.
                int grantedAfterJoin = atGrant.get() - (atJoin < 0 ? before : atJoin);
                most = Math.max(most, grantedAfterJoin);
                total += grantedAfterJoin;
            }
            stop.set(true);
            for (Future<?> loop : loops) {
                loop.get(20, TimeUnit.SECONDS);
            }
            System.out.printf("[permits fairness] once the patient manager was seen queued, at most %d grant(s) (%d in 5"
                    + " rounds) went to the busy one%n", most, total);
            // Once queued: the grant under way as its join landed, once more if the busy manager was in the queue ahead
            // of it, and one that landed between the join and this test's sighting of it.
            assertTrue(most <= 3, "queued, the patient manager is served within a few grants: " + most);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aQueuedManagerThatIsGoneStallsTheSemaphoreOnceForTheTurnGrace() {
        String database = mongo.freshDatabase();
        try (MongoLockManager waiter = manager(database, "waiter")) {
            Permits exports = waiter.permits("export", 1);
            exports.tryAcquire().orElseThrow().close(); // creates the semaphore
            MongoCollection<Document> locks = mongo.client().getDatabase(database).getCollection("locks");
            Document id = new Document("mongolock", "permits").append("name", "export");
            assertEquals(1, locks.updateOne(new Document("_id", id), Updates.push("queue", "crashed-node:0123456789abcdef"))
                    .getModifiedCount());
            assertTrue(exports.tryAcquire().isEmpty(), "the free permit is the queued manager's turn");
            long start = System.nanoTime();
            try (PermitHold held = exports.acquire(1, waitingUpTo(Duration.ofSeconds(10)))) {
                long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.printf("[permits fairness] a gone queue head held the free permit back %d ms%n", waitedMs);
                assertTrue(waitedMs >= 3_000, "not before the turn grace (3 s + 3 %): " + waitedMs + " ms");
                assertTrue(held.isHeld());
            }
            Document after = locks.find(new Document("_id", id)).first();
            assertEquals(List.of(), after.getList("queue", String.class), "the gone manager is out of the queue");
        }
    }

    @Test
    void aHeadWaitingForMorePermitsThanAreFreeKeepsItsTurn() throws Exception {
        String database = mongo.freshDatabase();
        try (MongoLockManager holder = manager(database, "holder"); MongoLockManager head = manager(database, "head");
             MongoLockManager later = manager(database, "later")) {
            PermitHold one = holder.permits("export", 2).acquire();
            CompletableFuture<PermitHold> both = CompletableFuture.supplyAsync(
                    () -> head.permits("export", 2).acquire(2, waitingUpTo(Duration.ofSeconds(20))));
            Thread.sleep(300); // the head's first attempt found one permit free and queued
            Optional<PermitHold> barged = later.permits("export", 2).tryAcquire(1, waitingUpTo(Duration.ofSeconds(5)));
            assertTrue(barged.isEmpty(), "the free permit waits for the head, which still waits, well past the turn grace");
            assertTrue(!both.isDone(), "the head still waits for two");
            one.close();
            try (PermitHold two = both.get(10, TimeUnit.SECONDS)) {
                assertEquals(2, two.permits());
                assertTrue(two.isHeld());
            }
        }
    }
}
