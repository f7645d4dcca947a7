package io.github.mongolock.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.MongoCommandException;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import io.github.mongolock.ForceReleaseRefusedException;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.LeaseClaim;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.LockStoreContract;
import io.github.mongolock.core.Sighting;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Set;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(MongoBackend.class)
class MongoLockStoreContractTest extends LockStoreContract {

    private final TestMongo mongo;
    private String database;

    MongoLockStoreContractTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @Override
    protected boolean readsTheDatabaseClock() {
        return mongo.evaluatesNow();
    }

    @Override
    protected boolean releaseByOperator(String name, String owner, long version, String operator, String reason) {
        LockAdmin admin = new LockAdmin(mongo.collection(database, "locks"), MongoLockStore.DEFAULT_TIMEOUT, operator,
                new ServerProfile(null, false, true));
        try {
            admin.forceRelease(name, owner, version, reason);
            return true;
        } catch (ForceReleaseRefusedException refused) {
            return false;
        }
    }

    @Override
    protected LockStore newStore() {
        database = mongo.freshDatabase();
        // What the server is, as the store would find out with a database to ask: the fast path's tests need a
        // server clock, and the single calls of this suite run even where the manager refuses to lock (FerretDB 1.x).
        return new MongoLockStore(mongo.collection(database, "locks"), MongoLockStore.DEFAULT_TIMEOUT, LockMetrics.NONE,
                new ServerProfile(null, false, true));
    }

    @Test
    void storesTheDocumentedShape() {
        AcquireAttempt.Granted granted = assertInstanceOf(AcquireAttempt.Granted.class,
                store.tryAcquire("job", "a", Duration.ofSeconds(30)));
        Document stored = mongo.collection(database, "locks").find().first();
        assertEquals(List.of("_id", "holds", "owner", "leaseId", "leaseMs", "version", "token", "beat", "acquiredAt", "renewedAt").stream().sorted().toList(),
                stored.keySet().stream().sorted().toList());
        assertEquals("job", stored.getString("_id"));
        assertEquals("a", stored.getString("owner"));
        assertEquals(1, stored.getInteger("holds"));
        assertEquals(granted.version(), stored.getLong("version"));
        assertEquals(granted.fencingToken(), stored.getLong("token"));
        assertEquals(30_000L, stored.getLong("leaseMs"));
        assertInstanceOf(Date.class, stored.get("renewedAt"));
        store.release("job", "a", granted.version(), 0);
        Document released = mongo.collection(database, "locks").find().first();
        assertEquals(null, released.getString("owner"));
        assertEquals(0, released.getInteger("holds"));
        assertEquals(granted.fencingToken(), released.getLong("token"), "the released document keeps its token");
    }

    @Test
    void aTakeoverMatchesOnlyTheWholeStateItSawNotAHalfAppliedOne() {
        // The torture test's one overlap on the stand-in: a read taken while a grant was being applied in
        // place paired the free lock's hold count with the grant's new version and beat, and the takeover
        // meant for a free lock took the lock just granted. Here the held document is given exactly the
        // version and beat of a sighting of the free lock, as such a read would have reported them.
        AcquireAttempt.Granted first = grant("job", "m1:1", LEASE);
        store.joinQueue("job", "m9");
        assertTrue(store.release("job", "m1:1", first.version(), 0));
        Sighting free = sight("job", "m2:1");
        mongo.collection(database, "locks").updateOne(new Document("_id", "job"), new Document("$set",
                new Document("owner", "m3:1").append("holds", 1)));
        assertInstanceOf(AcquireAttempt.Busy.class, store.takeOver("job", "m2:1", LEASE, free),
                "a takeover of a free lock must not take a held one");
        assertEquals("m3:1", mongo.collection(database, "locks").find().first().getString("owner"));
    }

    @Test
    void aFreeLockWaitsForItsQueueHeadAtMostTheTurnGraceNotAWholeLongLease() {
        AcquireAttempt.Granted held = grant("job", "m1:1", Duration.ofMinutes(10));
        assertEquals(Duration.ofMinutes(10), sight("job", "m2:1").holderLease(), "a held lock: the holder's lease");
        store.joinQueue("job", "gone");
        assertTrue(store.release("job", "m1:1", held.version(), 0));
        assertEquals(MongoLockStore.TURN_GRACE, sight("job", "m2:1").holderLease(),
                "a free lock queued for another: watched for the turn grace only");
        AcquireAttempt.Granted shortLease = grant("short", "m1:1", Duration.ofMillis(500));
        store.joinQueue("short", "gone");
        assertTrue(store.release("short", "m1:1", shortLease.version(), 0));
        assertEquals(Duration.ofMillis(500), sight("short", "m2:1").holderLease(), "never longer than the lease");
    }

    @Test
    void aLeaseThatEndedLongAgoByTheDatabaseClockIsMarkedForTheFastPath() {
        grant("stale", "crashed", Duration.ofMinutes(10));
        grant("fresh", "alive", Duration.ofMinutes(10));
        // Renewed two hours ago by the database's clock: the lease ended 110 minutes ago.
        mongo.collection(database, "locks").updateOne(new Document("_id", "stale"),
                new Document("$set", new Document("renewedAt", Date.from(Instant.now().minus(Duration.ofHours(2))))));
        // Without the database's clock (FerretDB 1.x) the fast path is skipped: the stale lock is watched like any other.
        assertEquals(readsTheDatabaseClock(), sight("stale", "b").endedLongAgo());
        assertFalse(sight("fresh", "b").endedLongAgo());
        // Ended 61 s ago but the lease is 10 minutes: not long enough ago (at least a lease, at least a minute).
        mongo.collection(database, "locks").updateOne(new Document("_id", "fresh"),
                new Document("$set", new Document("renewedAt", Date.from(Instant.now().minus(Duration.ofSeconds(661))))));
        assertFalse(sight("fresh", "b").endedLongAgo());
    }

    @Test
    void aDocumentOfTheEarlierVersionIsWatchedAndTakenOver() {
        MongoCollection<Document> raw = mongo.collection(database, "locks");
        Date renewed = Date.from(Instant.now());
        // As the first version wrote it: no beat; its holder renews renewedAt only.
        raw.insertOne(new Document("_id", "legacy").append("owner", "old-node:1:7").append("holds", 1)
                .append("version", 4L).append("token", 3L).append("leaseId", "old-lease").append("leaseMs", 30_000L)
                .append("acquiredAt", renewed).append("renewedAt", renewed));
        Sighting first = sight("legacy", "b");
        assertEquals("old-node:1:7", first.holder());
        raw.updateOne(new Document("_id", "legacy"), new Document("$set",
                new Document("renewedAt", Date.from(renewed.toInstant().plusMillis(10_000)))));
        assertInstanceOf(AcquireAttempt.Busy.class, store.takeOver("legacy", "b", LEASE, first),
                "an old holder's renewal (renewedAt only) spoils the sighting");
        AcquireAttempt.Granted next = takeOver("legacy", "b", sight("legacy", "b"));
        assertEquals(4L, next.fencingToken());
        assertEquals(1L, raw.find(new Document("_id", "legacy")).first().getLong("beat"));
    }

    @Test
    void aMinimumHoldsMarkerLeftByAHolderOfTheEarlierVersionEndsNobodysLease() throws InterruptedException {
        AcquireAttempt.Granted held = grant("job", "a:1:1", LEASE);
        assertTrue(store.releaseKeeping("job", "a:1:1", held.version(), Duration.ofMillis(100)));
        // A holder of the earlier version takes the kept lock over: its grant knows nothing of releasedAt and
        // leaves it in place, and its lease id lacks the current prefix; it renews renewedAt alone.
        MongoCollection<Document> raw = mongo.collection(database, "locks");
        raw.updateOne(new Document("_id", "job"), new Document("$set", new Document("owner", "old-node:1:7")
                .append("leaseId", "old-lease").append("leaseMs", 150L).append("renewedAt", new Date()))
                .append("$inc", new Document("version", 1L).append("token", 1L)));
        Thread.sleep(200);
        raw.updateOne(new Document("_id", "job"), new Document("$currentDate", new Document("renewedAt", true))); // it renews
        assertFalse(sight("job", "b:1:1").endedLongAgo(),
                "the marker belongs to the kept lease, not to the live holder that took it over");
    }

    @Test
    void aLeaseIsStoredRoundedUpToAWholeMillisecondSoNoWatchIsShorterThanIt() {
        grant("job", "a:1:1", Duration.ofNanos(100_900_000));
        assertEquals(101L, mongo.collection(database, "locks").find().first().getLong("leaseMs"));
        AcquireAttempt.Granted held = grant("kept", "a:1:2", LEASE);
        assertTrue(store.releaseKeeping("kept", "a:1:2", held.version(), Duration.ofNanos(200_000_001)));
        assertEquals(201L, mongo.collection(database, "locks").find(new Document("_id", "kept")).first().getLong("leaseMs"));
    }

    @Test
    void amazonDocumentDbsRetryableWritesErrorSaysWhatToSet() {
        MongoCommandException notSupported = new MongoCommandException(new org.bson.BsonDocument("ok", new org.bson.BsonInt32(0))
                .append("code", new org.bson.BsonInt32(301)).append("errmsg", new org.bson.BsonString("Retryable writes are not supported")),
                new ServerAddress("127.0.0.1", 27017));
        String advice = StoreCalls.advice(notSupported, "app.locks");
        assertTrue(advice.contains("retryWrites=false") && advice.contains("DocumentDB"), advice);
    }

    @Test
    void withRetryableWritesOffEveryOperationStillWorks() {
        try (MongoClient noRetries = MongoClients.create(mongo.uri() + "/?retryWrites=false&retryReads=false")) {
            LockStore plain = new MongoLockStore(noRetries.getDatabase(database).getCollection("plain-locks"));
            AcquireAttempt.Granted granted = assertInstanceOf(AcquireAttempt.Granted.class, plain.tryAcquire("job", "a", LEASE));
            assertTrue(plain.reenter("job", "a", granted.version()));
            assertEquals(Set.of("job"), plain.renew(List.of(new LeaseClaim("job", "a", granted.leaseId()))).confirmed());
            assertTrue(plain.release("job", "a", granted.version() + 1, 1));
            assertEquals(java.util.OptionalLong.of(granted.version() + 3), plain.resync("job", "a", granted.leaseId(), 0));
            assertTrue(plain.inspect("job").isEmpty());
        }
    }

    @Test
    void aTimeoutWhileStillWaitingForAServerMeansTheRequestWasNeverSent() {
        assertTrue(StoreCalls.neverSent(new com.mongodb.MongoOperationTimeoutException(
                "Timed out while waiting for a server that matches ReadPreferenceServerSelector{readPreference=primary}.")));
        assertTrue(StoreCalls.neverSent(new com.mongodb.MongoTimeoutException("Timed out while waiting for a connection")));
        assertFalse(StoreCalls.neverSent(new com.mongodb.MongoOperationTimeoutException("Operation exceeded the timeout limit.")),
                "a timeout while waiting for the answer: the write may have been applied");
    }
}
