package io.github.mongolock.examples.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockEvent;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockSession;
import io.github.mongolock.memory.InMemoryLockManager;
import io.github.mongolock.memory.InMemoryLocks;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * The example application with {@code mongolock.uri=memory:} ({@link InMemoryTestProfile}): no MongoDB, its locks
 * in the store of the injected {@link InMemoryLocks} bean, whose controls play a lost lease and another instance.
 */
@QuarkusTest
@TestProfile(InMemoryTestProfile.class)
class InMemoryLocksTest {

    @TestHTTPResource("/")
    URI app;

    /** The store of the application's locks, and its controls. */
    @Inject
    InMemoryLocks memory;

    /** The application's own LockManager bean. */
    @Inject
    LockManager locks;

    /** The application's observer of lock events. */
    @Inject
    LockEvents events;

    /**
     * The LockManager bean and {@code @Locked} share the injected store: a hold of the application's own shows there, and
     * keeps a second caller of {@code @Locked(value = "account-{accountId}", waitTime = "PT0.3S")} (a request) waiting
     * 0.3 s, then refused.
     */
    @Test
    void theApplicationsLocksLiveInTheInjectedStore() {
        long acquiredBefore = events.count(LockEvent.Kind.ACQUIRED, "account-42");
        try (LockSession held = locks.acquire("account-42")) {
            assertTrue(held.owner().startsWith("quarkus-example:"), "mongolock.instance-id applies: " + held.owner());
            assertEquals(held.owner(), memory.store().inspect("account-42").orElseThrow().owner(), "the hold is in the injected store");
            assertRefusedAfterItsWait("api/accounts/42/charge?cents=5", "account-42");
        }
        assertTrue(memory.store().inspect("account-42").isEmpty(), "released in the injected store");
        assertEquals("charged 5 cents to account 42", Http.post(app, "api/accounts/42/charge?cents=5").json().getString("receipt"));
        assertEquals(acquiredBefore + 2, events.count(LockEvent.Kind.ACQUIRED, "account-42"),
                "the test's hold and the charge that ran, as CDI events; the refused charge acquired nothing");
    }

    /** {@code takeOver}: another instance holds account 7, so its charge waits and is refused, until its lease is lost. */
    @Test
    void anotherOwnerMakesALockedMethodWaitThenFail() {
        long token = memory.takeOver("account-7", "batch-node");
        LockInfo taken = memory.store().inspect("account-7").orElseThrow();
        assertEquals("batch-node", taken.owner());
        assertEquals(token, taken.fencingToken());
        String refused = assertRefusedAfterItsWait("api/accounts/7/charge?cents=3", "account-7");
        assertTrue(refused.contains("batch-node"), "the message names the holder: " + refused);
        assertEquals("charged 4 cents to account 8", Http.post(app, "api/accounts/8/charge?cents=4").json().getString("receipt"));
        memory.loseLease("account-7");
        assertEquals("charged 3 cents to account 7", Http.post(app, "api/accounts/7/charge?cents=3").json().getString("receipt"));
        assertEquals(1, events.count(LockEvent.Kind.ACQUIRED, "account-7"), "only the charge that ran acquired it");
    }

    /**
     * Another instance, a manager built on the injected store, holds the report's lock: the scheduled job
     * ({@code SKIP}, every second) skips until it is released. ({@code takeOver} is not used here: the job keeps its
     * lock for a minimum hold after it returns, and a control on a lock in that state waits 5 s for a holder that
     * has nothing left to be told, then throws.)
     */
    @Test
    void anotherInstanceMakesTheScheduledJobSkip() throws Exception {
        Await.until("the report runs", () -> runs() > 0);
        int runsBefore;
        try (InMemoryLockManager batch = memory.newManager("batch-node");
             LockSession held = batch.acquire(NightlyReport.LOCK, Duration.ofSeconds(5))) {
            Thread.sleep(200); // a run that had the lock before has counted itself by now
            runsBefore = runs();
            Thread.sleep(2500); // two or three ticks
            assertEquals(runsBefore, runs(), "no run while another instance holds the report's lock");
            assertEquals(held.owner(), memory.store().inspect(NightlyReport.LOCK).orElseThrow().owner());
        }
        Await.until("the report runs again once the lock is free", () -> runs() > runsBefore);
    }

    /** {@code loseLease} on a hold of the application's LockManager: the session, its action and the CDI observer are told. */
    @Test
    void aLostLeaseIsSeenByTheApplication() {
        LockSession held = locks.acquire("inventory");
        AtomicBoolean told = new AtomicBoolean();
        held.onLeaseLost(() -> told.set(true));
        long lostBefore = events.count(LockEvent.Kind.LEASE_LOST, "inventory");
        memory.loseLease("inventory");
        assertFalse(held.isHeld(), "isHeld() once the control returned");
        assertTrue(told.get(), "onLeaseLost action ran");
        assertEquals(lostBefore + 1, events.count(LockEvent.Kind.LEASE_LOST, "inventory"), "LEASE_LOST observed as a CDI event");
        assertThrows(LockLostException.class, held::close);
        assertTrue(memory.store().inspect("inventory").isEmpty(), "the lock is free: close() released nothing of another's");
    }

    /**
     * {@code loseLease} on the election lock ({@code mongolock.leadership.names=example-leader}): the application's
     * leadership is revoked ({@code LeadershipRevoked}, LEASE_LOST), and it is elected again with a higher term.
     */
    @Test
    void aLostElectionLeaseRevokesTheLeadership() throws Exception {
        Await.until("the application leads", () -> leader().getBoolean("leader"));
        long term = Http.number(leader(), "term");
        assertTrue(memory.store().inspect(ClusterLeader.ELECTION).orElseThrow().owner().startsWith("quarkus-example:"));
        memory.loseLease(ClusterLeader.ELECTION);
        Await.until("LeadershipRevoked with LEASE_LOST", () -> ("term " + term + ": LEASE_LOST").equals(leader().getString("lastRevocation")));
        Await.until("elected again with a higher term", () -> leader().getBoolean("leader") && Http.number(leader(), "term") > term);
    }

    /** Posts to a charge whose account lock is busy: 409 after at least the method's wait time (0.3 s); returns the message. */
    private String assertRefusedAfterItsWait(String path, String lock) {
        long start = System.nanoTime();
        Http.Answer busy = Http.post(app, path);
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(409, busy.status(), busy.body());
        assertTrue(busy.body().contains(lock), busy.body());
        assertTrue(waitedMs >= 300, "waited its wait time first: " + waitedMs + " ms");
        return busy.body();
    }

    private Document leader() {
        return Http.get(app, "api/leader").json();
    }

    private int runs() {
        return Http.get(app, "api/report").json().getInteger("runs");
    }
}
