package io.github.mongolock.mongo;

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
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Idle lock documents are removed, and fencing tokens never go back (issue 21): a name removed and created
 * again starts above the highest token removed.
 */
@ExtendWith(MongoBackend.class)
class IdleLockCleanerTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    /** One session for every grant of a test: the clean-up test grants 100,000 names. */
    private String session;
    private static final Duration DAY = Duration.ofDays(1);

    private final TestMongo mongo;
    private String database;
    private MongoCollection<Document> raw;
    private MongoLockStore store;

    IdleLockCleanerTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void freshCollection() {
        database = mongo.freshDatabase();
        raw = mongo.collection(database, "locks");
        store = new MongoLockStore(mongo.client().getDatabase(database), "locks", MongoLockStore.DEFAULT_TIMEOUT, LockMetrics.NONE);
    }

    private AcquireAttempt.Granted grant(String name, String owner) {
        if (session == null) {
            session = store.openSession("cleaner-test", LEASE);
        }
        return assertInstanceOf(AcquireAttempt.Granted.class, store.tryAcquire(name, owner, session));
    }

    /** A cleaner whose clock runs {@code ahead} of now: documents freed just now look that old. */
    private IdleLockCleaner cleanerAhead(Duration ahead) {
        return new IdleLockCleaner(store, Clock.offset(Clock.systemUTC(), ahead));
    }

    private long lockDocuments() {
        return raw.countDocuments(new Document("_id", new Document("$type", "string")));
    }

    @Test
    void aHundredThousandNamesLockedOnceShrinkBackAndTokensNeverGoBack() {
        // 1,000 names locked and released through the store (one of them three times, token 3), and 99,000 more
        // written as such a release leaves them, to keep the test's run time reasonable on the stand-in.
        for (int i = 0; i < 1_000; i++) {
            String name = "account-" + i;
            int times = i == 7 ? 3 : 1;
            for (int t = 0; t < times; t++) {
                AcquireAttempt.Granted held = grant(name, "node:1:" + i + "-" + t);
                assertTrue(store.release(name, "node:1:" + i + "-" + t, held.version(), 0));
            }
        }
        Date twoDaysAgo = Date.from(Instant.now().minus(Duration.ofDays(2)));
        List<Document> released = new ArrayList<>(1_000);
        for (int i = 1_000; i < 100_000; i++) {
            released.add(new Document("_id", "account-" + i).append("owner", null).append("holds", 0).append("version", 2L)
                    .append("token", 1L).append("beat", 1L).append("leaseId", "b" + i).append("leaseMs", 30_000L)
                    .append("acquiredAt", twoDaysAgo).append("renewedAt", twoDaysAgo).append("freedAt", twoDaysAgo));
            if (released.size() == 1_000) {
                raw.insertMany(released);
                released.clear();
            }
        }
        AcquireAttempt.Granted stillHeld = grant("account-held", "node:1:held");
        grant("account-queued", "node:1:queued");
        store.joinQueue("account-queued", "node-2:1");
        AcquireAttempt.Granted queuedGrant = grant("account-queued-free", "node:1:qf");
        store.joinQueue("account-queued-free", "node-3:1");
        assertTrue(store.release("account-queued-free", "node:1:qf", queuedGrant.version(), 0));
        assertEquals(100_003, lockDocuments());
        long cleanUpStart = System.nanoTime();

        IdleLockCleaner cleaner = cleanerAhead(Duration.ofDays(2)); // everything freed today looks two days old
        int runs = 0;
        long examined = 0;
        long slowestRunNanos = 0;
        IdleLockCleaner.Run run;
        long floor = 0;
        do {
            long start = System.nanoTime();
            run = cleaner.removeIdle(DAY, IdleLockCleaner.DEFAULT_LIMIT);
            slowestRunNanos = Math.max(slowestRunNanos, System.nanoTime() - start);
            examined += run.examined();
            floor = Math.max(floor, run.floorRaisedTo());
            runs++;
        } while (run.examined() > 0 && runs < 200);
        System.out.printf("[idle clean-up] 100,003 lock documents -> %d left after %d runs of at most %d (3 commands each),"
                        + " %d examined, %d ms in all, slowest run %d ms (stand-in: no index, it sorts), token floor %d%n",
                lockDocuments(), runs, IdleLockCleaner.DEFAULT_LIMIT, examined,
                (System.nanoTime() - cleanUpStart) / 1_000_000, slowestRunNanos / 1_000_000, floor);

        assertEquals(3, lockDocuments(), "only the two held locks and the free one somebody queues for are left");
        assertEquals(100_000, examined, "every idle document was read once");
        assertEquals(3, floor, "the floor is the highest token removed");
        assertEquals("node:1:held", raw.find(new Document("_id", "account-held")).first().getString("owner"));
        assertTrue(store.release("account-held", "node:1:held", stillHeld.version(), 0), "the held lock is untouched");
        AcquireAttempt.Granted again = grant("account-7", "node:2:again");
        assertEquals(4, again.fencingToken(), "account-7 had token 3: created again, it starts above the floor");
        assertEquals(4, raw.find(new Document("_id", "account-7")).first().getLong("token"), "and stores it");
        assertTrue(store.reenter("account-7", "node:2:again", again.version()), "its version is the one granted");
    }

    @Test
    void aHeldLockOrOneFreedRecentlyStays() {
        AcquireAttempt.Granted first = grant("recent", "a:1:1");
        assertTrue(store.release("recent", "a:1:1", first.version(), 0));
        grant("held", "b:1:1");
        assertEquals(0, cleanerAhead(Duration.ZERO).removeIdle(DAY, 10).examined(), "freed a moment ago: not idle");
        IdleLockCleaner.Run run = cleanerAhead(Duration.ofDays(2)).removeIdle(DAY, 10);
        assertEquals(1, run.examined(), "only the free one is a candidate");
        assertEquals(1, run.removed());
        assertEquals(1, lockDocuments());
        assertEquals("b:1:1", raw.find(new Document("_id", "held")).first().getString("owner"), "held: never removed");
    }

    @Test
    void sessionsThatEndedLongAgoAreRemovedAfterTheirLocksAreFreedAndLiveOnesNever() {
        AcquireAttempt.Granted held = grant("held", "a:1:1");
        String live = session;
        String ended = store.openSession("gone", LEASE);
        AcquireAttempt.Granted orphaned = assertInstanceOf(AcquireAttempt.Granted.class, store.tryAcquire("orphaned", "gone:1", ended));
        store.endSession(ended);
        assertEquals(0, cleanerAhead(Duration.ZERO).removeEndedSessions(Duration.ofHours(24), 10), "ended just now: kept");
        assertEquals(1, raw.countDocuments(new Document("_id", "orphaned").append("holds", 1)), "and its lock not freed yet");
        assertEquals(1, cleanerAhead(Duration.ofHours(25)).removeEndedSessions(Duration.ofHours(24), 10));
        assertEquals(0, raw.countDocuments(new Document("_id", new Document("mongolock", "session").append("id", ended))));
        assertEquals(1, raw.countDocuments(new Document("_id", new Document("mongolock", "session").append("id", live))),
                "a live session is never removed, however old the clock makes it look");
        Document freed = raw.find(new Document("_id", "orphaned")).first();
        assertEquals(0, freed.getInteger("holds"), "the ended session's lock nobody asked for was freed first: " + freed);
        assertFalse(freed.containsKey("session"), freed::toJson);
        assertEquals("a:1:1", raw.find(new Document("_id", "held")).first().getString("owner"), "the live session's lock stays held");
        // Freed, not forgotten: the next grant has the next token, and the idle clean-up removes it a day later.
        String taker = store.openSession("taker", LEASE);
        AcquireAttempt.Granted taken = assertInstanceOf(AcquireAttempt.Granted.class, store.tryAcquire("orphaned", "taker:1", taker));
        assertEquals(orphaned.fencingToken() + 1, taken.fencingToken());
        assertTrue(store.renewSession(live).live());
        assertTrue(store.release("held", "a:1:1", held.version(), 0));
    }

    /**
     * A lock that still names a session whose document is gone (the freeing's multi-document update missed it, as a
     * chunk migration can make it) reads as held by an ended session: taken at once, with the next token.
     */
    @Test
    void aLockNamingARemovedSessionIsTakenAtOnce() {
        String gone = store.openSession("gone", LEASE);
        AcquireAttempt.Granted orphaned = assertInstanceOf(AcquireAttempt.Granted.class, store.tryAcquire("orphaned", "gone:1", gone));
        store.endSession(gone);
        raw.deleteOne(new Document("_id", new Document("mongolock", "session").append("id", gone)));
        String taker = store.openSession("taker", LEASE);
        AcquireAttempt.Busy busy = assertInstanceOf(AcquireAttempt.Busy.class, store.tryAcquire("orphaned", "taker:1", taker));
        assertTrue(busy.sighting().orElseThrow().endedLongAgo());
        AcquireAttempt.Granted taken = assertInstanceOf(AcquireAttempt.Granted.class,
                store.takeOver("orphaned", "taker:1", taker, busy.sighting().orElseThrow()));
        assertEquals(orphaned.fencingToken() + 1, taken.fencingToken());
    }

    @Test
    void onlyOneManagerCleansUpPerInterval() {
        IdleLockCleaner now = cleanerAhead(Duration.ZERO);
        IdleLockCleaner other = cleanerAhead(Duration.ZERO);
        assertTrue(now.claimRun(Duration.ofHours(1), "node-1"));
        assertFalse(other.claimRun(Duration.ofHours(1), "node-2"), "the interval is node-1's");
        assertFalse(now.claimRun(Duration.ofHours(1), "node-1"), "and not again before it is over");
        assertTrue(cleanerAhead(Duration.ofMinutes(61)).claimRun(Duration.ofHours(1), "node-2"), "the next interval");
        Document state = raw.find(new Document("_id", new Document("mongolock", "collection"))).first();
        assertEquals("node-2", state.getString("cleanUpBy"));
    }

    @Test
    void badArgumentsAreRefusedNamingTheValue() {
        IdleLockCleaner cleaner = new IdleLockCleaner(store);
        assertTrue(assertThrows(LockConfigurationException.class, () -> cleaner.removeIdle(Duration.ofSeconds(-1), 10))
                .getMessage().contains("PT-1S"));
        assertTrue(assertThrows(LockConfigurationException.class, () -> cleaner.removeIdle(DAY, 0))
                .getMessage().contains("limit 0"));
        assertTrue(assertThrows(LockConfigurationException.class, () -> MongoLockManager.builder().uri(mongo.uri())
                .database(database).idleLockAge(Duration.ofSeconds(-5)).build()).getMessage().contains("idleLockAge = PT-5S"));
        assertTrue(assertThrows(LockConfigurationException.class, () -> MongoLockManager.builder().uri(mongo.uri())
                .database(database).idleCheckInterval(Duration.ZERO).build()).getMessage().contains("idleCheckInterval = PT0S"));
    }

    @Test
    void aManagerCleansUpOnItsOwnAndTheNextGrantStillHasAHigherToken() throws InterruptedException {
        try (MongoLockManager manager = MongoLockManager.builder().client(mongo.client()).database(database)
                .collection("locks").pushWakeUp(false).idleLockAge(Duration.ofMillis(1))
                .idleCheckInterval(Duration.ofMillis(200)).build()) {
            long token;
            try (LockSession session = manager.acquire("report")) {
                token = session.fencingToken();
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (lockDocuments() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(0, lockDocuments(), "the manager's schedule removed the idle document");
            try (LockSession session = manager.acquire("report")) {
                assertTrue(session.fencingToken() > token, session.fencingToken() + " after " + token);
            }
        }
    }
}
