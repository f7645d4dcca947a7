package io.github.mongolock.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockSession;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.testing.Await;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.ScriptedCollection;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A forced release tells the holder's session reliably (issue 31, item 5): a signal that fails is tried again, and
 * one that cannot be delivered is reported to the operator instead of only logged.
 */
@ExtendWith(MongoBackend.class)
class ForcedReleaseSignalTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private final TestMongo mongo;
    private String database;
    private MongoLockManager holder;

    ForcedReleaseSignalTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void holderManager() {
        database = mongo.freshDatabase();
        holder = MongoLockManager.builder().client(mongo.client()).database(database).instanceId("node-1").leaseTime(LEASE).build();
    }

    @AfterEach
    void close() {
        holder.close();
    }

    private LockAdmin admin(ScriptedCollection faults) {
        return new LockAdmin(faults.wrap(mongo.collection(database, "locks")), MongoLockStore.DEFAULT_TIMEOUT, "alice@ops-1",
                ServerProfile.UNCHECKED);
    }

    @Test
    void aSignalThatFailsTwiceIsDeliveredAndTheHolderIsToldWithinALease() throws Exception {
        LockSession old = holder.acquire("import");
        AtomicLong toldAt = new AtomicLong();
        old.onLeaseLost(() -> toldAt.set(System.nanoTime()));
        ScriptedCollection signalDown = ScriptedCollection.failingCalls(2, ScriptedCollection::namesASession);

        long releasedAt = System.nanoTime();
        ForcedRelease done = admin(signalDown).forceRelease("import", "wedged, OPS-4711");
        assertEquals(2, signalDown.happened(), "the first two signals failed");
        assertTrue(done.sessionTold(), "the third attempt told the session");
        Await.await(() -> toldAt.get() != 0, "the old holder is told");
        long toldMs = (toldAt.get() - releasedAt) / 1_000_000;
        System.out.printf("[forced release] signal failed twice; holder told after %d ms (lease %s)%n", toldMs, LEASE);
        assertTrue(toldMs < LEASE.toMillis(), "told within about one renewal interval, not at the periodic check: " + toldMs + " ms");
        assertFalse(old.isHeld());
    }

    @Test
    void aSignalThatCannotBeDeliveredIsReportedToTheOperator() {
        LockSession old = holder.acquire("import");
        ScriptedCollection signalDown = ScriptedCollection.failingCalls(LockAdmin.SIGNAL_ATTEMPTS, ScriptedCollection::namesASession);
        ForcedRelease done = admin(signalDown).forceRelease("import", "wedged, OPS-4711");
        assertEquals(LockAdmin.SIGNAL_ATTEMPTS, signalDown.happened());
        assertFalse(done.sessionTold(), "the operator learns that the holder was not told");
        Document lock = mongo.collection(database, "locks").find(new Document("_id", "import")).first();
        assertEquals(0, lock.getInteger("holds"), "the release itself happened");
        assertEquals(old.owner(), lock.getString("revokedOwner"));
    }
}
