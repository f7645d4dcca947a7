package io.github.mongolock.mongo;

import static io.github.mongolock.testing.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockSession;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.ReleaseFeed;
import io.github.mongolock.core.Sighting;
import io.github.mongolock.testing.DeadHolder;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the protocol needs from the server it runs on, asked of the backend at hand, and what the
 * store does where a server lacks it. Runs on every backend; on FerretDB 1.x it shows each degradation
 * README promises (see "Where it runs"): no change streams, waiters poll; no {@code $$NOW}, no fast path;
 * updates of one document not atomic, the manager refuses to lock.
 */
@ExtendWith(MongoBackend.class)
class ServerCompatibilityTest {

    private static final int THREADS = 8;
    private static final int UPDATES_PER_THREAD = 150;

    private final TestMongo mongo;

    ServerCompatibilityTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    private ServerProfile profile() {
        return ServerProfile.of(mongo.client().getDatabase(mongo.freshDatabase()));
    }

    private boolean ferretDb1() {
        String version = profile().ferretDbVersion();
        return version != null && version.startsWith("v1.");
    }

    @Test
    void theServerSaysWhatItIs() {
        ServerProfile profile = profile();
        System.out.println("[server compatibility] " + mongo.describe() + ": " + profile);
        assertTrue(profile.checked());
        assertFalse(profile.router(), "the test backends are single servers, not routers");
        assertEquals(mongo.kind() == TestMongo.Kind.FERRETDB, profile.ferretDbVersion() != null,
                "buildInfo.ferretdbVersion names FerretDB, and only FerretDB");
    }

    /**
     * Every lock operation is one update of one document, and the protocol is only as safe as those
     * updates are atomic. Where they are (MongoDB, the stand-in) nothing is lost; where they are not
     * (FerretDB 1.x reads, then writes unconditionally), the manager must refuse to lock.
     */
    @Test
    void concurrentUpdatesOfOneDocumentAreAtomicWhereverTheManagerLocks() throws Exception {
        MongoCollection<Document> counter = mongo.collection(mongo.freshDatabase(), "counter");
        counter.insertOne(new Document("_id", "c").append("n", 0).append("version", 0L));
        AtomicInteger compareAndSetsWon = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                done.add(threads.submit(() -> {
                    for (int i = 0; i < UPDATES_PER_THREAD; i++) {
                        counter.updateOne(new Document("_id", "c"), new Document("$inc", new Document("n", 1)));
                        long seen = counter.find(new Document("_id", "c")).first().getLong("version");
                        compareAndSetsWon.addAndGet((int) counter.updateOne(new Document("_id", "c").append("version", seen),
                                new Document("$set", new Document("version", seen + 1))).getMatchedCount());
                    }
                    return null;
                }));
            }
            for (Future<?> each : done) {
                each.get();
            }
        } finally {
            threads.shutdownNow();
        }
        Document end = counter.find().first();
        int increments = THREADS * UPDATES_PER_THREAD;
        int lost = increments - end.getInteger("n");
        long doubleWins = compareAndSetsWon.get() - end.getLong("version");
        System.out.printf("[server compatibility] %s: %d concurrent $inc, %d lost; %d compare-and-sets won, %d of them"
                + " on a version another had already won%n", mongo.kind(), increments, lost, compareAndSetsWon.get(), doubleWins);
        if (ferretDb1()) {
            assertTrue(lost > 0 || doubleWins > 0, "FerretDB 1.x lost no update: if it now applies updates atomically,"
                    + " ServerProfile.requireAtomicUpdates may stop refusing it (measure with the torture test first)");
        } else {
            assertEquals(0, lost, "increments lost");
            assertEquals(0, doubleWins, "two compare-and-sets of one version both won");
        }
    }

    @Test
    void aManagerLocksOnlyWhereUpdatesAreAtomicAndWritesNothingWhereItRefuses() {
        String database = mongo.freshDatabase();
        try (MongoLockManager locks = MongoLockManager.builder().client(mongo.client()).database(database)
                .pushWakeUp(false).build()) {
            if (ferretDb1()) {
                LockConfigurationException refused = assertThrows(LockConfigurationException.class, () -> locks.acquire("job"));
                assertTrue(refused.getMessage().contains("FerretDB " + profile().ferretDbVersion())
                        && refused.getMessage().contains("Nothing was written"), refused.getMessage());
                assertEquals(0, mongo.collection(database, MongoLockManager.DEFAULT_COLLECTION).countDocuments());
            } else {
                try (LockSession session = locks.acquire("job")) {
                    assertTrue(session.isHeld());
                }
            }
        }
    }

    @Test
    void withoutChangeStreamsTheFeedSaysSoAndWaitersPoll() throws InterruptedException {
        MongoReleaseFeed feed = new MongoReleaseFeed(mongo.collection(mongo.freshDatabase(), "locks"), "compatibility-feed");
        try {
            feed.start(new ReleaseFeed.Listener() {
                @Override
                public void released(String name, String queueHead) {
                }

                @Override
                public void missedSome() {
                }

                @Override
                public boolean anyoneWaiting() {
                    return true;
                }
            });
            if (mongo.kind() == TestMongo.Kind.FERRETDB) {
                await(() -> feed.status() == ReleaseFeed.Status.UNAVAILABLE, "the feed gave up on a server without change streams");
            } else {
                await(() -> feed.status() == ReleaseFeed.Status.PUSHING, "the feed follows the change stream");
            }
        } finally {
            feed.close();
        }
    }

    @Test
    void behindARouterTheDatabaseClockDecidesNothing() {
        String database = mongo.freshDatabase();
        MongoCollection<Document> raw = mongo.collection(database, "locks");
        MongoLockStore direct = new MongoLockStore(raw, MongoLockStore.DEFAULT_TIMEOUT, LockMetrics.NONE,
                new ServerProfile(null, false, true));
        MongoLockStore throughRouter = new MongoLockStore(raw, MongoLockStore.DEFAULT_TIMEOUT, LockMetrics.NONE,
                new ServerProfile(null, true, true));
        DeadHolder.grant(direct, "stale", "crashed:0:1", Duration.ofMinutes(10));
        // Renewed two hours ago by the shard's clock, as a router's clock two hours ahead would also make it look.
        renewedTwoHoursAgo(raw, "stale");
        Sighting routed = assertInstanceOf(AcquireAttempt.Busy.class, throughRouter.tryAcquire("stale", "b:0:1",
                throughRouter.openSession("b:0", Duration.ofMinutes(10)))).sighting().orElseThrow();
        assertFalse(routed.endedLongAgo(), "a router's $$NOW is another machine's clock: no fast path behind one");
        assertEquals("crashed:0:1", throughRouter.inspect("stale").orElseThrow().owner(), "reported as stored");
        Sighting unrouted = assertInstanceOf(AcquireAttempt.Busy.class, direct.tryAcquire("stale", "b:0:1",
                direct.openSession("b:0", Duration.ofMinutes(10)))).sighting().orElseThrow();
        assertEquals(mongo.evaluatesNow(), unrouted.endedLongAgo(), "one server's clock on both sides: the fast path");
    }

    @Test
    void aStoreGivenOnlyACollectionNeverReadsTheDatabaseClock() {
        String database = mongo.freshDatabase();
        MongoCollection<Document> raw = mongo.collection(database, "locks");
        MongoLockStore unchecked = new MongoLockStore(raw);
        DeadHolder.grant(unchecked, "stale", "crashed:0:1", Duration.ofMinutes(10));
        renewedTwoHoursAgo(raw, "stale");
        Sighting seen = assertInstanceOf(AcquireAttempt.Busy.class, unchecked.tryAcquire("stale", "b:0:1",
                unchecked.openSession("b:0", Duration.ofMinutes(10)))).sighting().orElseThrow();
        assertFalse(seen.endedLongAgo(), "it cannot know whether a router sits in between");
    }

    /** A held lock whose last renewal, by the database's clock, was two hours ago: the fast path's case. */
    private static void renewedTwoHoursAgo(MongoCollection<Document> raw, String name) {
        DeadHolder.renewedAgo(raw, name, Duration.ofHours(2));
    }
}
