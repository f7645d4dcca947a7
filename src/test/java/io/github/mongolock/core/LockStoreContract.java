package io.github.mongolock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link LockStore} must do, one atomic call at a time. A store implementation extends
 * this class and supplies a fresh, empty store per test.
 */
public abstract class LockStoreContract {

    protected static final Duration LEASE = Duration.ofSeconds(30);
    static final Duration SHORT_LEASE = Duration.ofMillis(150);

    protected LockStore store;
    /** The session of each (manager, lease) the tests acquire for, opened on first use. */
    private final Map<String, String> sessions = new HashMap<>();

    /** An empty store no other test touches. */
    protected abstract LockStore newStore();

    /**
     * An operator's forced release of {@code name} from {@code owner} at {@code version}, as the backend offers it
     * (MongoDB: {@code LockAdmin}); false when it was refused because the lock is not {@code owner}'s at {@code version}.
     */
    protected abstract boolean releaseByOperator(String name, String owner, long version, String operator, String reason);

    /**
     * Whether the store reads the database's clock (MongoDB's {@code $$NOW}). Where it cannot (FerretDB
     * 1.x), the tests of what that clock decides check the promised degradation instead: no fast path,
     * a waiter's watch still takes the lock over, and {@code inspect} reports the lock as stored.
     */
    protected boolean readsTheDatabaseClock() {
        return true;
    }

    @BeforeEach
    void freshStore() {
        store = newStore();
        sessions.clear();
    }

    /** The session {@code owner}'s manager acquires under with {@code lease}: one per manager and lease. */
    protected String sessionOf(String owner, Duration lease) {
        String manager = LockStore.managerOf(owner);
        return sessions.computeIfAbsent(manager + "/" + lease, key -> store.openSession(manager, lease));
    }

    protected AcquireAttempt.Granted grant(String name, String owner, Duration lease) {
        return assertInstanceOf(AcquireAttempt.Granted.class, store.tryAcquire(name, owner, sessionOf(owner, lease)));
    }

    /** What a waiter {@code owner} sees of {@code name} held by someone else. */
    protected Sighting sight(String name, String owner) {
        AcquireAttempt.Busy busy = assertInstanceOf(AcquireAttempt.Busy.class, store.tryAcquire(name, owner, sessionOf(owner, LEASE)));
        return busy.sighting().orElseThrow();
    }

    /** A waiter's takeover: the store takes the lock over if it is still exactly as {@code seen}. */
    protected AcquireAttempt.Granted takeOver(String name, String owner, Sighting seen) {
        return assertInstanceOf(AcquireAttempt.Granted.class, store.takeOver(name, owner, sessionOf(owner, LEASE), seen));
    }

    static void pastLease(Duration lease) throws InterruptedException {
        Thread.sleep(lease.toMillis() + 100);
    }

    @Test
    void locksANewName() {
        AcquireAttempt.Granted granted = grant("job", "a", LEASE);
        assertEquals(1, granted.fencingToken());
        assertEquals(1, granted.version());
        LockInfo info = store.inspect("job").orElseThrow();
        assertEquals("a", info.owner());
        assertEquals(1, info.holdCount());
        assertEquals(1, info.fencingToken());
        assertTrue(info.expiresAt().isAfter(Instant.now().plusSeconds(20)), "lease ends ~30s ahead: " + info);
    }

    @Test
    void refusesASecondOwnerAndSaysWhoHoldsIt() {
        grant("job", "a", LEASE);
        AcquireAttempt.Busy busy = assertInstanceOf(AcquireAttempt.Busy.class, store.tryAcquire("job", "b", sessionOf("b", LEASE)));
        assertEquals("a", busy.holder().orElseThrow());
        Sighting sighting = busy.sighting().orElseThrow();
        assertEquals(LEASE, sighting.holderLease());
        assertFalse(sighting.endedLongAgo());
        assertEquals("a", store.inspect("job").orElseThrow().owner());
    }

    @Test
    void keepsNamesIndependent() {
        grant("job-1", "a", LEASE);
        grant("job-2", "b", LEASE);
        assertEquals("a", store.inspect("job-1").orElseThrow().owner());
        assertEquals("b", store.inspect("job-2").orElseThrow().owner());
    }

    @Test
    void locksAgainAfterReleaseWithTheNextToken() {
        AcquireAttempt.Granted first = grant("job", "a", LEASE);
        assertTrue(store.release("job", "a", first.version(), 0));
        assertTrue(store.inspect("job").isEmpty());
        AcquireAttempt.Granted second = grant("job", "b", LEASE);
        assertEquals(first.fencingToken() + 1, second.fencingToken());
        assertEquals(first.version() + 2, second.version());
    }

    @Test
    void anUnchangedLockIsTakenOverWithALargerTokenWhateverTheClocksSay() {
        AcquireAttempt.Granted crashed = grant("job", "a", LEASE);
        Sighting seen = sight("job", "b");
        assertInstanceOf(AcquireAttempt.Busy.class, store.tryAcquire("job", "b", sessionOf("b", LEASE)), "the store never decides by time");
        AcquireAttempt.Granted next = takeOver("job", "b", seen);
        assertTrue(next.fencingToken() > crashed.fencingToken());
        assertEquals("b", store.inspect("job").orElseThrow().owner());
        assertInstanceOf(AcquireAttempt.Busy.class, store.takeOver("job", "c", sessionOf("c", LEASE), seen), "a sighting is good for one takeover");
    }

    @Test
    void aReleaseKeepingTheLockLeavesItTakenUnrenewedForTheTimeLeft() {
        AcquireAttempt.Granted held = grant("job", "a", LEASE);
        Sighting beforeRelease = sight("job", "b");
        assertFalse(store.releaseKeeping("job", "other", held.version(), Duration.ofSeconds(2)), "owner-checked");
        assertFalse(store.releaseKeeping("job", "a", held.version() + 5, Duration.ofSeconds(2)), "version-checked");
        assertTrue(store.releaseKeeping("job", "a", held.version(), Duration.ofSeconds(2)));
        assertInstanceOf(AcquireAttempt.Busy.class, store.tryAcquire("job", "b", sessionOf("b", LEASE)), "still taken");
        assertInstanceOf(AcquireAttempt.Busy.class, store.takeOver("job", "b", sessionOf("b", LEASE), beforeRelease),
                "the release moved the watched state: every watch starts again");
        Sighting kept = sight("job", "b");
        assertEquals(Duration.ofSeconds(2), kept.holderLease(), "waiters watch it for the time left, not the old lease");
        assertTrue(heldUnder(sessionOf("a", LEASE)).isEmpty(),
                "a kept lock leaves its session: the session's renewals cannot extend it");
        assertFalse(store.release("job", "a", held.version(), 0), "the old version is gone");
        AcquireAttempt.Granted next = takeOver("job", "b", kept);
        assertEquals(held.fencingToken() + 1, next.fencingToken());
    }

    @Test
    void aMinimumHoldThatIsOverByTheDatabasesClockIsTakenAtOnceByANewcomer() throws InterruptedException {
        AcquireAttempt.Granted held = grant("job", "a", LEASE);
        assertTrue(store.releaseKeeping("job", "a", held.version(), Duration.ofMillis(200)));
        assertFalse(sight("job", "b").endedLongAgo(), "still within the minimum hold");
        Thread.sleep(300);
        Sighting over = sight("job", "c");
        if (readsTheDatabaseClock()) {
            assertTrue(over.endedLongAgo(), "nobody is inside and its time is over: no need to watch it for 200 ms more");
        } else {
            assertFalse(over.endedLongAgo(), "without the database's clock the minimum hold's end is watched for, not read");
            assertEquals(Duration.ofMillis(200), over.holderLease(), "watched for the time that was left, as a lease");
        }
        takeOver("job", "c", over);
        assertFalse(sight("job", "d").endedLongAgo(), "the new grant is a live holder's, not a minimum hold");
    }

    @Test
    void everyChangeByTheHolderSpoilsAnEarlierSighting() {
        AcquireAttempt.Granted held = grant("job", "a", LEASE);
        Sighting beforeRenewal = sight("job", "b");
        assertTrue(store.renewSession(sessionOf("a", LEASE)).live());
        assertInstanceOf(AcquireAttempt.Busy.class, store.takeOver("job", "b", sessionOf("b", LEASE), beforeRenewal),
                "its session was renewed since");
        assertTrue(store.renewSession(sessionOf("a", LEASE)).live(), "a takeover that missed leaves the session live");
        Sighting beforeReentry = sight("job", "b");
        assertTrue(store.reenter("job", "a", held.version()));
        assertInstanceOf(AcquireAttempt.Busy.class, store.takeOver("job", "b", sessionOf("b", LEASE), beforeReentry), "re-entered since");
        // The session itself went unrenewed since the sighting, which for a waiter means a whole lease: it was ended
        // (its holder's confirmed lease is over by then), and only the lock's own change kept the lock.
        assertFalse(store.renewSession(sessionOf("a", LEASE)).live());
        Sighting beforeRelease = sight("job", "b");
        assertTrue(store.release("job", "a", held.version() + 1, 1));
        assertInstanceOf(AcquireAttempt.Busy.class, store.takeOver("job", "b", sessionOf("b", LEASE), beforeRelease), "released a hold since");
        assertEquals(List.of("a"), heldUnder(sessionOf("a", LEASE)).stream().map(SessionCheck.HeldUnder::owner).toList(),
                "no stale sighting took the lock");
        assertFalse(sight("job", "b").state().equals(beforeRenewal.state()));
    }

    @Test
    void aLeaseUnrenewedPastItsEndIsNotReportedAsHeld() throws InterruptedException {
        grant("job", "a", SHORT_LEASE);
        pastLease(SHORT_LEASE);
        if (readsTheDatabaseClock()) {
            assertTrue(store.inspect("job").isEmpty(), "inspect is for people: by the database's clock the lease is over");
        } else {
            assertEquals("a", store.inspect("job").orElseThrow().owner(), "without the database's clock: as stored");
        }
        assertInstanceOf(AcquireAttempt.Busy.class, store.tryAcquire("job", "b", sessionOf("b", LEASE)), "but only a waiter's watch takes it over");
    }

    @Test
    void aFreeLockQueuedForAnotherManagerWaitsForItsTurn() {
        AcquireAttempt.Granted held = grant("job", "m1:1", LEASE);
        AcquireAttempt.Busy first = assertInstanceOf(AcquireAttempt.Busy.class, store.tryAcquire("job", "m2:1", sessionOf("m2:1", LEASE)));
        assertFalse(first.queued(), "not queued before joining");
        store.joinQueue("job", "m2");
        store.joinQueue("job", "m3");
        store.joinQueue("job", "m2"); // once only
        assertTrue(assertInstanceOf(AcquireAttempt.Busy.class, store.tryAcquire("job", "m2:2", sessionOf("m2:2", LEASE))).queued());
        assertTrue(store.release("job", "m1:1", held.version(), 0));
        // Free, but m2 is at the head: neither the manager that just released nor m3 may take it.
        AcquireAttempt.Busy notYours = assertInstanceOf(AcquireAttempt.Busy.class, store.tryAcquire("job", "m1:2", sessionOf("m1:2", LEASE)));
        assertTrue(notYours.sighting().isPresent(), "a free lock queued for another is watched like a held one");
        assertInstanceOf(AcquireAttempt.Busy.class, store.tryAcquire("job", "m3:1", sessionOf("m3:1", LEASE)));
        AcquireAttempt.Granted turn = grant("job", "m2:3", LEASE);
        assertEquals(held.fencingToken() + 1, turn.fencingToken());
        assertTrue(store.release("job", "m2:3", turn.version(), 0));
        // m2 left the queue with its grant: m3 is next, m2 cannot barge back in.
        assertInstanceOf(AcquireAttempt.Busy.class, store.tryAcquire("job", "m2:4", sessionOf("m2:4", LEASE)));
        grant("job", "m3:2", LEASE);
    }

    @Test
    void aManagerThatLeavesTheQueueNoLongerHoldsUpTheLock() {
        AcquireAttempt.Granted held = grant("job", "m1:1", LEASE);
        store.joinQueue("job", "m2");
        store.leaveQueue("job", "m2");
        assertTrue(store.release("job", "m1:1", held.version(), 0));
        grant("job", "m1:2", LEASE);
    }

    @Test
    void aQueueHeadThatNeverTakesItsTurnIsTakenOverFromAndDropped() {
        AcquireAttempt.Granted held = grant("job", "m1:1", LEASE);
        store.joinQueue("job", "gone");
        store.joinQueue("job", "m3");
        assertTrue(store.release("job", "m1:1", held.version(), 0));
        Sighting waitingForGone = sight("job", "m3:1");
        // The waiter's watch decides when (a whole watch period unchanged); the store only checks the state.
        AcquireAttempt.Granted taken = takeOver("job", "m3:1", waitingForGone);
        assertEquals(held.fencingToken() + 1, taken.fencingToken());
        assertTrue(store.release("job", "m3:1", taken.version(), 0));
        grant("job", "m1:2", LEASE); // "gone" and m3 are out of the queue
    }

    @Test
    void handOverIsOneCompareAndSetFromTheHolderToItsNextAcquisition() {
        AcquireAttempt.Granted held = grant("job", "m1:1", LEASE);
        AcquireAttempt.Granted next = assertInstanceOf(AcquireAttempt.Granted.class,
                store.handOver("job", "m1:1", held.version(), "m1:2", sessionOf("m1:2", LEASE)));
        assertEquals(held.fencingToken() + 1, next.fencingToken(), "a hand-over is a grant: the token grows");
        assertEquals(held.version() + 1, next.version());
        assertFalse(next.leaseId().equals(held.leaseId()), "a lease id of its own");
        assertEquals("m1:2", store.inspect("job").orElseThrow().owner());
        // The previous acquisition can do nothing to it any more, and a stale hand-over changes nothing.
        assertFalse(store.release("job", "m1:1", held.version(), 0));
        assertEquals(List.of("m1:2"), heldUnder(sessionOf("m1:1", LEASE)).stream().map(SessionCheck.HeldUnder::owner).toList(),
                "the session holds the new acquisition only");
        assertInstanceOf(AcquireAttempt.Busy.class, store.handOver("job", "m1:1", held.version(), "m1:3", sessionOf("m1:3", LEASE)));
        assertEquals("m1:2", store.inspect("job").orElseThrow().owner());
        assertTrue(store.release("job", "m1:2", next.version(), 0));
    }

    @Test
    void reentryIsACompareAndSetOnTheVersion() {
        AcquireAttempt.Granted granted = grant("job", "a", LEASE);
        assertTrue(store.reenter("job", "a", granted.version()));
        assertFalse(store.reenter("job", "a", granted.version()), "a stale version must not match");
        assertFalse(store.reenter("job", "b", granted.version() + 1), "another owner must not match");
        LockInfo info = store.inspect("job").orElseThrow();
        assertEquals(2, info.holdCount());
        assertEquals(granted.fencingToken(), info.fencingToken(), "re-entry keeps the token");
        assertTrue(store.release("job", "a", granted.version() + 1, 1));
        assertEquals(1, store.inspect("job").orElseThrow().holdCount());
        assertTrue(store.release("job", "a", granted.version() + 2, 0));
        assertTrue(store.inspect("job").isEmpty());
    }

    @Test
    void resyncSetsTheOwnersHoldCountWhateverTheVersionAndOnlyForItsAcquisition() {
        AcquireAttempt.Granted granted = grant("job", "a", LEASE);
        assertTrue(store.reenter("job", "a", granted.version())); // its answer "lost": the owner still thinks version 1
        assertFalse(store.release("job", "a", granted.version(), 1), "the owner's stale compare-and-set misses");
        assertEquals(OptionalLong.of(granted.version() + 2), store.resync("job", "a", granted.leaseId(), 1));
        assertEquals(1, store.inspect("job").orElseThrow().holdCount());
        assertEquals(OptionalLong.empty(), store.resync("job", "a", "another-acquisition", 0), "the lease id must match");
        assertEquals(OptionalLong.empty(), store.resync("job", "b", granted.leaseId(), 0), "the owner must match");
        assertEquals(OptionalLong.of(granted.version() + 3), store.resync("job", "a", granted.leaseId(), 0));
        assertTrue(store.inspect("job").isEmpty(), "zero holds frees the lock");
        AcquireAttempt.Granted next = grant("job", "b", SHORT_LEASE);
        assertEquals(granted.fencingToken() + 1, next.fencingToken(), "freed by the resync");
        assertEquals(OptionalLong.empty(), store.resync("job", "a", granted.leaseId(), 1), "a late resync changes nothing");
        assertEquals("b", store.inspect("job").orElseThrow().owner());
    }

    @Test
    void onlyTheOwnerReleases() {
        AcquireAttempt.Granted granted = grant("job", "a", LEASE);
        assertFalse(store.release("job", "intruder", granted.version(), 0));
        assertFalse(store.release("job", "a", granted.version() + 7, 0), "a wrong version must not match");
        assertEquals("a", store.inspect("job").orElseThrow().owner());
    }

    @Test
    void aReleaseAfterTakeoverFreesNothing() {
        AcquireAttempt.Granted late = grant("job", "a", SHORT_LEASE);
        AcquireAttempt.Granted next = takeOver("job", "b", sight("job", "b"));
        assertFalse(store.release("job", "a", late.version(), 0));
        assertFalse(store.reenter("job", "a", late.version()));
        assertFalse(store.renewSession(sessionOf("a", SHORT_LEASE)).live(), "the takeover ended the holder's session");
        store.abandon("job", "a");
        LockInfo info = store.inspect("job").orElseThrow();
        assertEquals("b", info.owner());
        assertEquals(next.fencingToken(), info.fencingToken());
        assertEquals(1, info.holdCount());
    }

    @Test
    void tokensGrowOnEveryFreshAcquisition() {
        long previous = 0;
        for (int round = 0; round < 5; round++) {
            String owner = "owner-" + round;
            AcquireAttempt.Granted granted = round == 3 ? takeOver("job", owner, sight("job", owner)) : grant("job", owner, LEASE);
            assertTrue(granted.fencingToken() > previous, "token " + granted.fencingToken() + " after " + previous);
            previous = granted.fencingToken();
            if (round != 2) { // the next one takes over instead of finding it released
                assertTrue(store.release("job", owner, granted.version(), 0));
            }
        }
    }

    @Test
    void aSessionRenewalKeepsEveryLockOfItAliveAndTouchesNoLock() throws InterruptedException {
        Duration lease = Duration.ofMillis(600);
        AcquireAttempt.Granted mine = grant("mine", "a", lease);
        AcquireAttempt.Granted also = grant("also-mine", "a:2", lease);
        grant("theirs", "b", LEASE);
        Sighting before = sight("mine", "c");
        for (int i = 0; i < 4; i++) {
            Thread.sleep(250);
            assertTrue(store.renewSession(sessionOf("a", lease)).live());
        }
        assertEquals("a", store.inspect("mine").orElseThrow().owner(), "alive after 1 s on a 0.6 s lease");
        assertEquals("b", store.inspect("theirs").orElseThrow().owner());
        assertEquals(Set.of("mine/" + mine.version(), "also-mine/" + also.version()), heldUnder(sessionOf("a", lease)).stream()
                .map(held -> held.name() + "/" + held.version()).collect(Collectors.toSet()), "renewals never move a lock's version");
        assertFalse(sight("mine", "c").state().equals(before.state()), "but every waiter's watch starts again");
    }

    @Test
    void aTakeoverEndsTheHoldersSessionFirstAndFreesAllItsLocksForWaiters() {
        grant("job", "a", LEASE);
        grant("other", "a:2", LEASE);
        String holders = sessionOf("a", LEASE);
        Sighting seen = sight("job", "b");
        assertFalse(seen.endedLongAgo());
        takeOver("job", "b", seen);
        assertFalse(store.renewSession(holders).live(), "an ended session is never renewed again");
        assertFalse(store.renewSession(holders).live(), "and stays ended");
        Sighting ofTheSameSession = sight("other", "c");
        assertTrue(ofTheSameSession.endedLongAgo(), "its other locks are taken at once: no second watch");
        AcquireAttempt.Granted other = takeOver("other", "c", ofTheSameSession);
        assertEquals(2, other.fencingToken());
        store.endSession(holders); // the owner's own end of an ended session changes nothing
        assertFalse(store.renewSession(holders).live());
    }

    @Test
    void aTakeoverOfALockWhoseSessionWasRenewedMeanwhileChangesNothing() {
        AcquireAttempt.Granted held = grant("job", "a", LEASE);
        Sighting seen = sight("job", "b");
        assertTrue(store.renewSession(sessionOf("a", LEASE)).live());
        assertInstanceOf(AcquireAttempt.Busy.class, store.takeOver("job", "b", sessionOf("b", LEASE), seen));
        assertTrue(store.renewSession(sessionOf("a", LEASE)).live(), "the holder's session is still live");
        assertTrue(store.release("job", "a", held.version(), 0), "and the lock still the holder's");
    }

    @Test
    void theOwnerEndingItsSessionFreesItsLocksForWaitersAtOnce() {
        grant("job", "a", LEASE);
        store.endSession(sessionOf("a", LEASE));
        assertFalse(store.renewSession(sessionOf("a", LEASE)).live());
        Sighting seen = sight("job", "b");
        assertTrue(seen.endedLongAgo());
        takeOver("job", "b", seen);
    }

    @Test
    void aSessionCheckListsTheLocksHeldUnderItAndNothingElse() {
        AcquireAttempt.Granted job = grant("job", "m1:1", LEASE);
        grant("other", "m1:2", LEASE);
        grant("theirs", "m2:1", LEASE);
        AcquireAttempt.Granted released = grant("released", "m1:3", LEASE);
        assertTrue(store.release("released", "m1:3", released.version(), 0));
        assertTrue(store.reenter("job", "m1:1", job.version()));
        List<SessionCheck.HeldUnder> held = heldUnder(sessionOf("m1:1", LEASE));
        assertEquals(Set.of("job", "other"), held.stream().map(SessionCheck.HeldUnder::name).collect(Collectors.toSet()));
        SessionCheck.HeldUnder first = held.stream().filter(lock -> lock.name().equals("job")).findFirst().orElseThrow();
        assertEquals("m1:1", first.owner());
        assertEquals(job.leaseId(), first.leaseId());
        assertEquals(job.version() + 1, first.version(), "the version to free it by, if nobody here knows it");
        assertTrue(store.release("job", "m1:1", first.version(), 0));
        assertEquals(Set.of("other"), heldUnder(sessionOf("m1:1", LEASE)).stream().map(SessionCheck.HeldUnder::name)
                .collect(Collectors.toSet()));
    }

    @Test
    void aClaimAnOperatorEndedIsLostWithTheOperatorsReasonEvenAfterTheNextGrant() {
        AcquireAttempt.Granted held = grant("job", "m1:1", LEASE);
        AcquireAttempt.Granted other = grant("other", "m1:2", LEASE);
        String session = sessionOf("m1:1", LEASE);
        long checksBefore = store.renewSession(session).checks();
        assertFalse(releaseByOperator("job", "m2:1", held.version(), "alice", "wedged"), "owner-checked");
        assertFalse(releaseByOperator("job", "m1:1", held.version() + 1, "alice", "wedged"), "version-checked");
        assertTrue(releaseByOperator("job", "m1:1", held.version(), "alice", "wedged since 02:10"));
        assertFalse(releaseByOperator("job", "m1:1", held.version(), "alice", "again"), "free now: nothing to release");
        assertTrue(store.inspect("job").isEmpty(), "free");
        SessionRenewal renewal = store.renewSession(session);
        assertTrue(renewal.live(), "the session lives on for its other locks");
        assertTrue(renewal.checks() > checksBefore, "the holder's manager is told to check its locks");
        LeaseClaim revoked = new LeaseClaim("job", "m1:1", held.leaseId());
        SessionCheck check = store.checkSession(session, List.of(revoked, new LeaseClaim("other", "m1:2", other.leaseId())));
        assertEquals(List.of("other"), check.held().stream().map(SessionCheck.HeldUnder::name).toList());
        assertEquals("released by an operator: wedged since 02:10 (by alice)", check.lossReason("job"));
        AcquireAttempt.Granted next = grant("job", "m3:1", LEASE);
        assertEquals(held.fencingToken() + 1, next.fencingToken());
        assertEquals("released by an operator: wedged since 02:10 (by alice)",
                store.checkSession(session, List.of(revoked)).lossReason("job"),
                "still told after the next grant: the revocation names the acquisition it ended");
        SessionCheck nextHolders = store.checkSession(sessionOf("m3:1", LEASE), List.of(new LeaseClaim("job", "m3:1", next.leaseId())));
        assertEquals(List.of("job"), nextHolders.held().stream().map(SessionCheck.HeldUnder::name).toList());
        assertEquals(Map.of(), nextHolders.lossReasons());
        AcquireAttempt.Granted stale = grant("plain", "m1:3", SHORT_LEASE);
        takeOver("plain", "m4:1", sight("plain", "m4:1"));
        assertEquals(SessionCheck.TAKEN_OVER, store.checkSession(sessionOf("m1:3", SHORT_LEASE),
                List.of(new LeaseClaim("plain", "m1:3", stale.leaseId()))).lossReason("plain"), "a takeover is no operator's doing");
    }

    /** The locks the store holds under {@code session}. */
    protected List<SessionCheck.HeldUnder> heldUnder(String session) {
        return store.checkSession(session, List.of()).held();
    }

    @Test
    void abandonFreesOnlyTheGivenOwnersLock() {
        grant("job", "a", LEASE);
        store.abandon("job", "b");
        assertEquals("a", store.inspect("job").orElseThrow().owner());
        store.abandon("job", "a");
        assertTrue(store.inspect("job").isEmpty());
        assertEquals(2, grant("job", "b", LEASE).fencingToken(), "the token survives an abandon");
    }

    @Test
    void namesAreValuesNeverOperators() {
        List<String> tricky = List.of("$gt", "{\"$ne\": null}", "a.b.c", "$where", "ünïcødé-ロック", "owner");
        for (String name : tricky) {
            grant(name, "a", LEASE);
        }
        for (String name : tricky) {
            assertEquals("a", store.inspect(name).orElseThrow().owner(), name);
            assertEquals(1, store.inspect(name).orElseThrow().fencingToken(), name);
        }
        assertTrue(store.inspect("other").isEmpty());
    }
}
