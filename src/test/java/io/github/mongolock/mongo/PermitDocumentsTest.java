package io.github.mongolock.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.core.PermitAttempt;
import io.github.mongolock.core.PermitHolders;
import io.github.mongolock.core.PermitStore;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The leased semaphore's writes, one store call at a time (spec/PERMITS-DESIGN.md). */
@ExtendWith(MongoBackend.class)
class PermitDocumentsTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private final TestMongo mongo;
    private MongoCollection<Document> raw;

    PermitDocumentsTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void freshCollection() {
        raw = mongo.collection(mongo.freshDatabase(), "locks");
    }

    private MongoLockStore store(MongoCollection<Document> collection) {
        return new MongoLockStore(collection, MongoLockStore.DEFAULT_TIMEOUT, LockMetrics.NONE, ServerProfile.UNCHECKED);
    }

    private static PermitAttempt.Granted granted(PermitAttempt attempt) {
        return assertInstanceOf(PermitAttempt.Granted.class, attempt);
    }

    @Test
    void grantsUpToTheLimitThenAnswersBusyWithTheHoldersAndTheirSessions() {
        MongoLockStore store = store(raw);
        String session = store.openSession("m1", LEASE);
        PermitStore permits = store.permits();
        long first = granted(permits.tryAcquire("export", 3, 1, "m1:a:1", session)).fencingToken();
        long second = granted(permits.tryAcquire("export", 3, 2, "m1:a:2", session)).fencingToken();
        assertTrue(second > first, "tokens grow: " + first + " then " + second);

        PermitAttempt.Busy busy = assertInstanceOf(PermitAttempt.Busy.class, permits.tryAcquire("export", 3, 1, "m1:a:3", session));
        PermitHolders seen = busy.seen().orElseThrow();
        assertEquals(3, seen.used());
        assertEquals(0, seen.free());
        assertEquals(2, seen.holds().size());
        assertEquals(1, seen.sessions().size(), "one holding session, read once");
        assertFalse(seen.sessions().get(0).ended());
    }

    @Test
    void aReleaseGivesBackExactlyWhatItsOwnerHeldAndOnlyOnce() {
        MongoLockStore store = store(raw);
        String session = store.openSession("m1", LEASE);
        PermitStore permits = store.permits();
        granted(permits.tryAcquire("export", 2, 2, "m1:a:1", session));
        assertFalse(permits.release("export", "m1:a:1", 1), "a release naming other permits than held matches nothing");
        assertTrue(permits.release("export", "m1:a:1", 2));
        assertFalse(permits.release("export", "m1:a:1", 2), "released once");
        assertEquals(0, permits.inspect("export").orElseThrow().used());
        granted(permits.tryAcquire("export", 2, 2, "m1:a:2", session));
    }

    @Test
    void anotherLimitIsRefusedNamingBothValuesAndNothingIsWritten() {
        MongoLockStore store = store(raw);
        String session = store.openSession("m1", LEASE);
        PermitStore permits = store.permits();
        granted(permits.tryAcquire("export", 3, 1, "m1:a:1", session));
        PermitHolders before = permits.inspect("export").orElseThrow();
        LockConfigurationException refused = assertThrows(LockConfigurationException.class,
                () -> permits.tryAcquire("export", 5, 1, "m1:a:2", session));
        assertTrue(refused.getMessage().contains("has 3 permits") && refused.getMessage().contains("limit of 5"),
                refused.getMessage());
        PermitHolders after = permits.inspect("export").orElseThrow();
        assertEquals(before.version(), after.version(), "nothing written");
        assertEquals(before.holds(), after.holds());
    }

    @Test
    void aSemaphoreNeverClashesWithALockOfTheSameName() {
        MongoLockStore store = store(raw);
        String session = store.openSession("m1", LEASE);
        granted(store.permits().tryAcquire("export", 1, 1, "m1:a:1", session));
        assertInstanceOf(io.github.mongolock.core.AcquireAttempt.Granted.class, store.tryAcquire("export", "m1:b:1", session));
    }

    @Test
    void aLiveSessionsPermitsAreNotTakenBackEvenWhenItsSessionIsReadAsMissing() {
        MongoLockStore holder = store(raw);
        String holderSession = holder.openSession("holder", LEASE);
        granted(holder.permits().tryAcquire("export", 1, 1, "holder:a:1", holderSession));

        MongoLockStore waiter = store(raw);
        String waiterSession = waiter.openSession("waiter", LEASE);
        PermitHolders seen = assertInstanceOf(PermitAttempt.Busy.class,
                waiter.permits().tryAcquire("export", 1, 1, "waiter:a:1", waiterSession)).seen().orElseThrow();
        // A stale read (a snapshot before the session's insert) showed the session as missing: ended.
        PermitHolders.Seen staleRead = new PermitHolders.Seen(holderSession, -1L, Duration.ofMillis(1), true);
        assertInstanceOf(PermitAttempt.Busy.class, waiter.permits().reclaim("export", 1, 1, "waiter:a:1", waiterSession, staleRead));
        PermitHolders after = holder.permits().inspect("export").orElseThrow();
        assertEquals(seen.holds(), after.holds(), "the live holder keeps its permit");
        assertEquals(List.of(new PermitStore.HeldUnder("export", "holder:a:1", 1)), holder.permits().heldUnder(holderSession));
    }

    @Test
    void anEndedSessionsPermitsAreTakenBackAndTheCheckReportsThemGone() {
        MongoLockStore holder = store(raw);
        String holderSession = holder.openSession("holder", LEASE);
        granted(holder.permits().tryAcquire("export", 3, 2, "holder:a:1", holderSession));
        granted(holder.permits().tryAcquire("export", 3, 1, "holder:a:2", holderSession));

        MongoLockStore waiter = store(raw);
        String waiterSession = waiter.openSession("waiter", LEASE);
        PermitHolders seen = assertInstanceOf(PermitAttempt.Busy.class,
                waiter.permits().tryAcquire("export", 3, 1, "waiter:a:1", waiterSession)).seen().orElseThrow();
        PermitHolders.Seen watched = seen.sessions().get(0);
        // The waiter watched the beat unchanged for the lease: it expires the session, takes its permits back, then is granted.
        PermitAttempt.Granted taken = granted(waiter.permits().reclaim("export", 3, 1, "waiter:a:1", waiterSession, watched));
        assertTrue(taken.fencingToken() > seen.token());
        PermitHolders after = waiter.permits().inspect("export").orElseThrow();
        assertEquals(1, after.used(), "both holds of the ended session were taken back, and the waiter holds one");
        assertEquals(List.of(), holder.permits().heldUnder(holderSession), "the holder's check finds none of its permits");
        assertFalse(holder.renewSession(holderSession).live(), "the holder's session stays ended");
    }

    @Test
    void aRenewedSessionIsNotEnded() {
        MongoLockStore holder = store(raw);
        String holderSession = holder.openSession("holder", LEASE);
        granted(holder.permits().tryAcquire("export", 1, 1, "holder:a:1", holderSession));
        MongoLockStore waiter = store(raw);
        String waiterSession = waiter.openSession("waiter", LEASE);
        PermitHolders.Seen watched = assertInstanceOf(PermitAttempt.Busy.class,
                waiter.permits().tryAcquire("export", 1, 1, "waiter:a:1", waiterSession)).seen().orElseThrow().sessions().get(0);
        assertTrue(holder.renewSession(holderSession).live());
        assertInstanceOf(PermitAttempt.Busy.class, waiter.permits().reclaim("export", 1, 1, "waiter:a:1", waiterSession, watched));
        assertEquals(List.of(new PermitStore.HeldUnder("export", "holder:a:1", 1)), holder.permits().heldUnder(holderSession));
    }

    @Test
    void aGrantWhoseAnswerWasLostIsCleanedUpByReleasingWhatWasAsked() {
        MongoLockStore store = store(raw);
        String session = store.openSession("m1", LEASE);
        store.permits().tryAcquire("export", 1, 1, "m1:a:1", session); // applied; its caller never heard the answer
        assertTrue(store.permits().release("export", "m1:a:1", 1), "the clean-up finds the grant by its owner id");
        assertEquals(0, store.permits().inspect("export").orElseThrow().used());
        assertFalse(store.permits().release("export", "m1:a:1", 1), "a clean-up of a grant that never landed matches nothing");
    }
}
