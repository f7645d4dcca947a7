package io.github.mongolock.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.SessionCheck;
import io.github.mongolock.core.Sighting;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.ScriptedCollection;
import io.github.mongolock.testing.TestMongo;
import java.time.Clock;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The protocol where MongoDB is weaker than the stand-in (issue 31): a read that a replica set can answer from an
 * older snapshot, a call that fails half-way, a document of the previous version beside new ones. Each test is
 * a defect found on 13c7186 and fails there; store-level, one deterministic step each
 * ({@link ScriptedCollection}).
 */
@ExtendWith(MongoBackend.class)
class WeakerThanLinearizableTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private final TestMongo mongo;
    private MongoCollection<Document> raw;

    WeakerThanLinearizableTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void freshCollection() {
        raw = mongo.collection(mongo.freshDatabase(), "locks");
    }

    private MongoLockStore store(MongoCollection<Document> collection) {
        return new MongoLockStore(collection, MongoLockStore.DEFAULT_TIMEOUT, LockMetrics.NONE, ServerProfile.UNCHECKED);
    }

    private static AcquireAttempt.Granted granted(AcquireAttempt attempt) {
        return assertInstanceOf(AcquireAttempt.Granted.class, attempt);
    }

    /**
     * Defect 1: a waiter reads the lock, then its session from a snapshot before the session's insert ("not
     * found"). A read must never authorise a take: the holder's session is live, so the take must fail, and the
     * holder's lock and session stay as they were.
     */
    @Test
    void aSessionReadAsMissingDoesNotLetAWaiterTakeALiveLock() {
        MongoLockStore holder = store(raw);
        String holderSession = holder.openSession("holder", LEASE);
        AcquireAttempt.Granted held = granted(holder.tryAcquire("payments", "holder:1", holderSession));

        ScriptedCollection staleSessionRead = ScriptedCollection.missingReads(1, ScriptedCollection::namesASession);
        MongoLockStore waiter = store(staleSessionRead.wrap(raw));
        String waiterSession = waiter.openSession("waiter", LEASE);
        AcquireAttempt.Busy busy = assertInstanceOf(AcquireAttempt.Busy.class, waiter.tryAcquire("payments", "waiter:1", waiterSession));
        assertEquals(1, staleSessionRead.happened(), "the waiter's read of the holder's session was answered 'not found'");
        Sighting sighting = busy.sighting().orElseThrow();
        AcquireAttempt taken = waiter.takeOver("payments", "waiter:1", waiterSession, sighting);

        assertInstanceOf(AcquireAttempt.Busy.class, taken, "a live session's lock was taken on a read alone");
        Document lock = raw.find(new Document("_id", "payments")).first();
        assertEquals("holder:1", lock.getString("owner"));
        assertEquals(held.leaseId(), lock.getString("leaseId"));
        assertTrue(holder.renewSession(holderSession).live(), "the holder's session must still be live");
    }

    /**
     * Defect 1, the tombstone: a session that truly is not there (never opened where the waiter reads, or removed)
     * is ended by the waiter's compare-and-set, which leaves an ended session document: a late open of that id
     * (the renewal of a holder that the waiter's read missed) can never make it live again.
     */
    @Test
    void aSessionEndedByAWaiterWhileItsDocumentIsMissingStaysEnded() {
        MongoLockStore holder = store(raw);
        String holderSession = holder.openSession("holder", LEASE);
        granted(holder.tryAcquire("payments", "holder:1", holderSession));
        raw.deleteOne(new Document("_id", LockDocument.sessionId(holderSession))); // as if never inserted where read

        MongoLockStore waiter = store(raw);
        String waiterSession = waiter.openSession("waiter", LEASE);
        AcquireAttempt.Busy busy = assertInstanceOf(AcquireAttempt.Busy.class, waiter.tryAcquire("payments", "waiter:1", waiterSession));
        granted(waiter.takeOver("payments", "waiter:1", waiterSession, busy.sighting().orElseThrow()));

        Document tombstone = raw.find(new Document("_id", LockDocument.sessionId(holderSession))).first();
        assertEquals(LockDocument.ENDED, tombstone == null ? null : tombstone.get(LockDocument.STATE),
                "the missing session is ended by a document of its own");
        assertEquals(false, holder.renewSession(holderSession).live(), "the holder's renewal must find its session ended");
    }

    /**
     * The compare-and-set that makes a take safe costs one session write per ended session, not one per lock: a
     * dead manager's other locks are taken without touching its session again (it can never be live again).
     */
    @Test
    void theLocksOfASessionEndedForSureAreTakenWithoutAnotherSessionWrite() {
        MongoLockStore dead = store(raw);
        String deadSession = dead.openSession("dead", LEASE);
        granted(dead.tryAcquire("a", "dead:1", deadSession));
        granted(dead.tryAcquire("b", "dead:2", deadSession));
        dead.endSession(deadSession);

        MongoLockStore waiter = store(raw);
        String waiterSession = waiter.openSession("waiter", LEASE);
        AcquireAttempt.Busy first = assertInstanceOf(AcquireAttempt.Busy.class, waiter.tryAcquire("a", "waiter:1", waiterSession));
        granted(waiter.takeOver("a", "waiter:1", waiterSession, first.sighting().orElseThrow()));
        AcquireAttempt.Busy second = assertInstanceOf(AcquireAttempt.Busy.class, waiter.tryAcquire("b", "waiter:2", waiterSession));
        // Gone now: a session write by the second take would leave a tombstone in its place.
        raw.deleteOne(new Document("_id", LockDocument.sessionId(deadSession)));
        granted(waiter.takeOver("b", "waiter:2", waiterSession, second.sighting().orElseThrow()));
        assertEquals(0, raw.countDocuments(new Document("_id", LockDocument.sessionId(deadSession))),
                "the second take wrote the ended session again");
    }

    /** Five grants of one name, then the idle clean-up removes its document: the floor is 5. */
    private void nameUsedFiveTimesThenRemoved(MongoLockStore store, String session) {
        for (int i = 1; i <= 5; i++) {
            AcquireAttempt.Granted grant = granted(store.tryAcquire("export", "early:" + i, session));
            assertEquals(i, grant.fencingToken());
            assertTrue(store.release("export", "early:" + i, grant.version(), 0));
        }
        IdleLockCleaner.Run run = new IdleLockCleaner(store, Clock.offset(Clock.systemUTC(), Duration.ofDays(1)))
                .removeIdle(Duration.ofHours(1), 100);
        assertEquals(1, run.removed());
        assertEquals(5, run.floorRaisedTo());
    }

    /**
     * Defect 2: the acquire that creates the document again cannot read the floor (one failure); its caller
     * abandons the attempt (frees what it may have been granted). The next grant must still be above the floor.
     */
    /**
     * After {@link #nameUsedFiveTimesThenRemoved}, "creator:1" creates the document again under {@code creatorSession},
     * and its one read of the floor fails: the grant's outcome is unknown to it.
     */
    private void createdWhileTheFloorReadFails(String creatorSession) {
        ScriptedCollection floorDown = ScriptedCollection.failingCalls(1, ScriptedCollection::namesTheCollectionState);
        MongoLockStore creator = store(floorDown.wrap(raw));
        assertThrows(LockStoreException.class, () -> creator.tryAcquire("export", "creator:1", creatorSession));
        assertEquals(1, floorDown.happened());
    }

    @Test
    void tokensDoNotGoBackWhenTheFloorReadFailsAndTheCreatedLockIsAbandoned() {
        MongoLockStore plain = store(raw);
        String session = plain.openSession("tokens", LEASE);
        nameUsedFiveTimesThenRemoved(plain, session);
        createdWhileTheFloorReadFails(session);
        plain.abandon("export", "creator:1"); // what the coordinator does with an attempt whose outcome is unknown

        AcquireAttempt.Granted next = granted(plain.tryAcquire("export", "next:1", session));
        assertTrue(next.fencingToken() > 5, "token " + next.fencingToken() + " after a floor of 5: tokens went back");
    }

    /**
     * Defect 2: the creator stops between creating the document and raising its token (paused, or its floor read
     * failed and it gave up); its session ends, and a waiter takes the created lock over. The waiter's token must
     * be above the floor.
     */
    @Test
    void tokensDoNotGoBackWhenAWaiterTakesACreatedLockBeforeItsFloorWasApplied() {
        MongoLockStore plain = store(raw);
        String session = plain.openSession("tokens", LEASE);
        nameUsedFiveTimesThenRemoved(plain, session);
        String creatorSession = plain.openSession("creator", LEASE);
        createdWhileTheFloorReadFails(creatorSession);
        plain.endSession(creatorSession); // its lease lapsed: a waiter may take its locks

        AcquireAttempt.Busy busy = assertInstanceOf(AcquireAttempt.Busy.class, plain.tryAcquire("export", "waiter:1", session));
        AcquireAttempt.Granted taken = granted(plain.takeOver("export", "waiter:1", session, busy.sighting().orElseThrow()));
        assertTrue(taken.fencingToken() > 5, "token " + taken.fencingToken() + " after a floor of 5: tokens went back");
    }

    /**
     * A lock held by a node of the previous version (no session: it renews the lock document itself), carrying a
     * {@code session} left by an earlier holder, under a session that has ended.
     */
    private String previousVersionLockWithLeftoverSession(MongoLockStore store) {
        String ended = store.openSession("gone", LEASE);
        store.endSession(ended);
        raw.insertOne(new Document("_id", "report").append("owner", "old-node:7").append("holds", 1).append("version", 12L)
                .append("token", 12L).append("beat", 40L).append("leaseId", "b65f1c0a2e4b0c1d2e3f4a5b6")
                .append("leaseMs", 30_000L).append("renewedAt", new Date()).append("session", ended));
        return ended;
    }

    /** Defect 3: the clean-up of ended sessions frees only locks held under them, not an old holder's lock. */
    @Test
    void theCleanUpOfEndedSessionsLeavesAPreviousVersionsLockAlone() {
        MongoLockStore store = store(raw);
        previousVersionLockWithLeftoverSession(store);
        new IdleLockCleaner(store, Clock.offset(Clock.systemUTC(), Duration.ofDays(1))).removeEndedSessions(Duration.ofHours(1), 100);

        Document lock = raw.find(new Document("_id", "report")).first();
        assertEquals("old-node:7", lock.getString("owner"), "the previous version's holder lost its lock to the clean-up");
        assertEquals(1, lock.getInteger("holds"));
        String session = store.openSession("new-node", LEASE);
        assertInstanceOf(AcquireAttempt.Busy.class, store.tryAcquire("report", "new-node:1", session));
    }

    /** Defect 3: the session check names only locks held under the session, so the renewer never frees an old holder's lock as its orphan. */
    @Test
    void theSessionCheckDoesNotClaimAPreviousVersionsLock() {
        MongoLockStore store = store(raw);
        String ended = previousVersionLockWithLeftoverSession(store);
        SessionCheck check = store.checkSession(ended, List.of());
        assertEquals(List.of(), check.held(), "a lock of no session was reported held under " + ended);
    }
}
