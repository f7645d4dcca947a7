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
import io.github.mongolock.testing.DeadHolder;
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
                store.tryAcquire("job", "a", sessionOf("a", Duration.ofSeconds(30))));
        Document stored = mongo.collection(database, "locks").find(new Document("_id", "job")).first();
        assertEquals(List.of("_id", "holds", "owner", "leaseId", "leaseMs", "session", "version", "token", "beat", "acquiredAt",
                "renewedAt", "tokenPending").stream().sorted().toList(), stored.keySet().stream().sorted().toList());
        assertEquals("job", stored.getString("_id"));
        assertEquals("a", stored.getString("owner"));
        assertEquals(1, stored.getInteger("holds"));
        assertEquals(granted.version(), stored.getLong("version"));
        assertEquals(granted.fencingToken(), stored.getLong("token"));
        assertEquals(sessionOf("a", Duration.ofSeconds(30)), stored.getString("session"));
        assertEquals(36_500L * 24 * 3600 * 1000, stored.getLong("leaseMs"), "what an earlier version's waiter sees: a century");
        assertInstanceOf(Date.class, stored.get("renewedAt"));
        Document session = mongo.collection(database, "locks").find(new Document("_id",
                new Document("mongolock", "session").append("id", stored.getString("session")))).first();
        assertEquals(List.of("_id", "manager", "state", "beat", "leaseMs", "checks", "startedAt", "renewedAt").stream().sorted()
                .toList(), session.keySet().stream().sorted().toList());
        assertEquals("live", session.getString("state"));
        assertEquals(30_000L, session.getLong("leaseMs"), "the lease is the session's");
        assertEquals("a", session.getString("manager"));
        store.release("job", "a", granted.version(), 0);
        Document released = mongo.collection(database, "locks").find(new Document("_id", "job")).first();
        assertEquals(null, released.getString("owner"));
        assertFalse(released.containsKey("session"), "a free lock names no session");
        assertFalse(released.containsKey("tokenPending"), "the holder's grant applied the token floor: no later grant reads it");
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
        assertInstanceOf(AcquireAttempt.Busy.class, store.takeOver("job", "m2:1", sessionOf("m2:1", LEASE), free),
                "a takeover of a free lock must not take a held one");
        assertEquals("m3:1", mongo.collection(database, "locks").find(new Document("_id", "job")).first().getString("owner"));
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
        assertEquals(MongoLockStore.TURN_GRACE, sight("short", "m2:1").holderLease(),
                "a free lock does not know its last holder's session lease: the turn grace, whatever it was");
    }

    @Test
    void aLeaseThatEndedLongAgoByTheDatabaseClockIsMarkedForTheFastPath() {
        grant("stale", "crashed", Duration.ofMinutes(10));
        grant("fresh", "alive", Duration.ofMinutes(10));
        // Renewed two hours ago by the database's clock: the lease ended 110 minutes ago.
        DeadHolder.renewedAgo(mongo.collection(database, "locks"), "stale", Duration.ofHours(2));
        // Without the database's clock (FerretDB 1.x) the fast path is skipped: the stale lock is watched like any other.
        assertEquals(readsTheDatabaseClock(), sight("stale", "b").endedLongAgo());
        assertFalse(sight("fresh", "b").endedLongAgo());
        // Ended 61 s ago but the lease is 10 minutes: not long enough ago (at least a lease, at least a minute).
        DeadHolder.renewedAgo(mongo.collection(database, "locks"), "fresh", Duration.ofSeconds(661));
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
        assertInstanceOf(AcquireAttempt.Busy.class, store.takeOver("legacy", "b", sessionOf("b", LEASE), first),
                "an old holder's renewal (renewedAt only) spoils the sighting");
        AcquireAttempt.Granted next = takeOver("legacy", "b", sight("legacy", "b"));
        assertEquals(4L, next.fencingToken());
        assertEquals(1L, raw.find(new Document("_id", "legacy")).first().getLong("beat"));
    }

    /**
     * A rolling upgrade from the per-lock renewal: a lock held by a node of the previous version (a lease id starting
     * with "b", no session, its holder moving {@code beat}) is watched by its own state and lease, as that version
     * did, and taken over by the lock's compare-and-set; the take puts it under the taker's session.
     */
    @Test
    void aLockOfThePreviousVersionIsWatchedByItsOwnBeatAndTakenOver() {
        MongoCollection<Document> raw = mongo.collection(database, "locks");
        raw.insertOne(new Document("_id", "previous").append("owner", "old-node:1:7").append("holds", 1)
                .append("version", 4L).append("token", 3L).append("beat", 10L).append("leaseId", "b0123456789abcdef01234567")
                .append("leaseMs", 30_000L).append("acquiredAt", new Date()).append("renewedAt", new Date()));
        Sighting first = sight("previous", "b");
        assertEquals(Duration.ofSeconds(30), first.holderLease(), "its own lease, not a session's");
        raw.updateOne(new Document("_id", "previous"), new Document("$inc", new Document("beat", 1L))); // it renews
        assertInstanceOf(AcquireAttempt.Busy.class, store.takeOver("previous", "b", sessionOf("b", LEASE), first),
                "the old holder's renewal spoils the sighting");
        AcquireAttempt.Granted next = takeOver("previous", "b", sight("previous", "b"));
        assertEquals(4L, next.fencingToken());
        assertEquals(sessionOf("b", LEASE), raw.find(new Document("_id", "previous")).first().getString("session"));
    }

    /**
     * The other direction of a rolling upgrade: a node of the previous version watches {@code beat} and
     * {@code leaseMs} of the lock itself (the rule {@code WatchedState} still applies to locks of no session) and
     * would take a session lock, which nobody renews by itself, over after one lease. A session lock shows it a
     * century-long lease, so that waiter's watch never ends and its fast path never fires, even with the lock's
     * {@code renewedAt} two hours old: it waits until the lock is released.
     */
    @Test
    void aNodeOfThePreviousVersionNeverTakesASessionLockOver() {
        grant("job", "new-node:1:1", Duration.ofSeconds(3));
        MongoCollection<Document> raw = mongo.collection(database, "locks");
        raw.updateOne(new Document("_id", "job"), new Document("$set",
                new Document("renewedAt", Date.from(Instant.now().minus(Duration.ofHours(2))))));
        Document lock = raw.aggregate(List.of(new Document("$match", new Document("_id", "job")),
                new Document("$addFields", new Document("serverNow", "$$NOW")))).first();
        Sighting asThePreviousVersionSawIt = WatchedState.sightingOf(lock);
        assertEquals(Duration.ofDays(36_500), asThePreviousVersionSawIt.holderLease());
        assertTrue(io.github.mongolock.core.LeaseWatch.watchPeriod(asThePreviousVersionSawIt.holderLease())
                .compareTo(Duration.ofDays(100 * 365)) >= 0, "its watch saturates: it never ends");
        assertFalse(asThePreviousVersionSawIt.endedLongAgo(), "no fast path either");
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
        MongoCollection<Document> raw = mongo.collection(database, "locks");
        String session = raw.find(new Document("_id", "job")).first().getString("session");
        assertEquals(101L, raw.find(new Document("_id", new Document("mongolock", "session").append("id", session))).first()
                .getLong("leaseMs"), "the session's lease, which waiters watch");
        assertEquals(Duration.ofMillis(101), sight("job", "b:1:1").holderLease());
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
            String session = plain.openSession("a", LEASE);
            AcquireAttempt.Granted granted = assertInstanceOf(AcquireAttempt.Granted.class, plain.tryAcquire("job", "a", session));
            assertTrue(plain.reenter("job", "a", granted.version()));
            assertTrue(plain.renewSession(session).live());
            assertEquals(List.of("job"), plain.checkSession(session, List.of(new LeaseClaim("job", "a", granted.leaseId())))
                    .held().stream().map(io.github.mongolock.core.SessionCheck.HeldUnder::name).toList());
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
