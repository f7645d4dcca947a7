package io.github.mongolock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockConfigurationException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every {@link PermitStore} must do, one atomic call at a time (spec/PERMITS-DESIGN.md): a store implementation
 * extends this class and supplies a fresh store per test, and a second view of the same store (another manager's).
 */
public abstract class PermitStoreContract {

    private static final Duration LEASE = Duration.ofSeconds(30);

    /** An empty store no other test touches. */
    protected abstract LockStore newStore();

    /** Another manager's store on the same data as {@code store} (MongoDB: the same collection). */
    protected abstract LockStore sameStoreAs(LockStore store);

    private static PermitStore permits(LockStore store) {
        return store.permitStore().orElseThrow(() -> new AssertionError(store + " keeps no semaphores"));
    }

    private static PermitAttempt.Granted granted(PermitAttempt attempt) {
        return assertInstanceOf(PermitAttempt.Granted.class, attempt);
    }

    @Test
    void grantsUpToTheLimitThenAnswersBusyWithTheHoldersAndTheirSessions() {
        LockStore store = newStore();
        String session = store.openSession("m1", LEASE);
        PermitStore permits = permits(store);
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
    void aFreePermitGoesOnlyToTheManagerFirstInTheQueueAndTheGrantTakesItOut() {
        LockStore store = newStore();
        PermitStore permits = permits(store);
        PermitStore other = permits(sameStoreAs(store));
        String session = store.openSession("m1", LEASE);
        granted(permits.tryAcquire("export", 1, 1, "m1:a:1", session));
        other.joinQueue("export", "m2:b");
        other.joinQueue("export", "m2:b");
        permits.joinQueue("export", "m3:c");
        assertEquals(List.of("m2:b", "m3:c"), permits.inspect("export").orElseThrow().queue(), "joined once each, in order");
        assertTrue(permits.release("export", "m1:a:1", 1));
        assertInstanceOf(PermitAttempt.Busy.class, permits.tryAcquire("export", 1, 1, "m3:c:1", session), "m2:b's turn");
        String session2 = sameStoreAs(store).openSession("m2", LEASE);
        granted(other.tryAcquire("export", 1, 1, "m2:b:1", session2));
        assertEquals(List.of("m3:c"), permits.inspect("export").orElseThrow().queue());
        permits.leaveQueue("export", "m3:c");
        assertEquals(List.of(), permits.inspect("export").orElseThrow().queue());
    }

    @Test
    void aStaleHeadIsTakenOutOnlyIfHeadAndTurnAreAsWatched() {
        LockStore store = newStore();
        PermitStore permits = permits(store);
        String session = store.openSession("m1", LEASE);
        granted(permits.tryAcquire("export", 2, 1, "m1:a:1", session));
        permits.joinQueue("export", "m2:b");
        PermitHolders watched = permits.inspect("export").orElseThrow();
        permits.stillWaiting("export", "m3:c"); // not first: nothing moves
        assertEquals(watched.turn(), permits.inspect("export").orElseThrow().turn());
        permits.stillWaiting("export", "m2:b"); // the head shows it still waits
        assertFalse(permits.dropStaleHead("export", "m2:b", watched.turn()), "the head moved its turn");
        PermitHolders again = permits.inspect("export").orElseThrow();
        assertFalse(permits.dropStaleHead("export", "m3:c", again.turn()), "not the head");
        assertTrue(permits.release("export", "m1:a:1", 1), "a release meanwhile does not save a gone head");
        assertTrue(permits.dropStaleHead("export", "m2:b", again.turn()));
        assertEquals(List.of(), permits.inspect("export").orElseThrow().queue());
        assertEquals(again.version() + 1, permits.inspect("export").orElseThrow().version(),
                "the queue never moves the version (only the release did)");
    }

    @Test
    void aReleaseGivesBackExactlyWhatItsOwnerHeldAndOnlyOnce() {
        LockStore store = newStore();
        String session = store.openSession("m1", LEASE);
        PermitStore permits = permits(store);
        granted(permits.tryAcquire("export", 2, 2, "m1:a:1", session));
        assertFalse(permits.release("export", "m1:a:1", 1), "a release naming other permits than held matches nothing");
        assertTrue(permits.release("export", "m1:a:1", 2));
        assertFalse(permits.release("export", "m1:a:1", 2), "released once");
        assertEquals(0, permits.inspect("export").orElseThrow().used());
        granted(permits.tryAcquire("export", 2, 2, "m1:a:2", session));
    }

    @Test
    void anotherLimitIsRefusedNamingBothValuesAndNothingIsWritten() {
        LockStore store = newStore();
        String session = store.openSession("m1", LEASE);
        PermitStore permits = permits(store);
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
        LockStore store = newStore();
        String session = store.openSession("m1", LEASE);
        granted(permits(store).tryAcquire("export", 1, 1, "m1:a:1", session));
        assertInstanceOf(AcquireAttempt.Granted.class, store.tryAcquire("export", "m1:b:1", session));
    }

    @Test
    void aLiveSessionsPermitsAreNotTakenBackEvenWhenItsSessionIsReadAsMissing() {
        LockStore holder = newStore();
        String holderSession = holder.openSession("holder", LEASE);
        granted(permits(holder).tryAcquire("export", 1, 1, "holder:a:1", holderSession));

        LockStore waiter = sameStoreAs(holder);
        String waiterSession = waiter.openSession("waiter", LEASE);
        PermitHolders seen = assertInstanceOf(PermitAttempt.Busy.class,
                permits(waiter).tryAcquire("export", 1, 1, "waiter:a:1", waiterSession)).seen().orElseThrow();
        // A stale read (a snapshot before the session's insert) showed the session as missing: ended.
        PermitHolders.Seen staleRead = new PermitHolders.Seen(holderSession, -1L, Duration.ofMillis(1), true);
        assertInstanceOf(PermitAttempt.Busy.class, permits(waiter).reclaim("export", 1, 1, "waiter:a:1", waiterSession, staleRead));
        PermitHolders after = permits(holder).inspect("export").orElseThrow();
        assertEquals(seen.holds(), after.holds(), "the live holder keeps its permit");
        assertEquals(List.of(new PermitStore.HeldUnder("export", "holder:a:1", 1)), permits(holder).heldUnder(holderSession));
    }

    @Test
    void anEndedSessionsPermitsAreTakenBackAndTheCheckReportsThemGone() {
        LockStore holder = newStore();
        String holderSession = holder.openSession("holder", LEASE);
        granted(permits(holder).tryAcquire("export", 3, 2, "holder:a:1", holderSession));
        granted(permits(holder).tryAcquire("export", 3, 1, "holder:a:2", holderSession));

        LockStore waiter = sameStoreAs(holder);
        String waiterSession = waiter.openSession("waiter", LEASE);
        PermitHolders seen = assertInstanceOf(PermitAttempt.Busy.class,
                permits(waiter).tryAcquire("export", 3, 1, "waiter:a:1", waiterSession)).seen().orElseThrow();
        PermitHolders.Seen watched = seen.sessions().get(0);
        // The waiter watched the beat unchanged for the lease: it expires the session, takes its permits back, then is granted.
        PermitAttempt.Granted taken = granted(permits(waiter).reclaim("export", 3, 1, "waiter:a:1", waiterSession, watched));
        assertTrue(taken.fencingToken() > seen.token());
        PermitHolders after = permits(waiter).inspect("export").orElseThrow();
        assertEquals(1, after.used(), "both holds of the ended session were taken back, and the waiter holds one");
        assertEquals(List.of(), permits(holder).heldUnder(holderSession), "the holder's check finds none of its permits");
        assertFalse(holder.renewSession(holderSession).live(), "the holder's session stays ended");
    }

    @Test
    void takingBackAnEndedSessionsPermitsTakesItsManagerOutOfTheQueue() {
        LockStore holder = newStore();
        String holderSession = holder.openSession("holder", LEASE);
        granted(permits(holder).tryAcquire("export", 1, 1, "holder:a:1", holderSession));
        LockStore waiter = sameStoreAs(holder);
        String waiterSession = waiter.openSession("waiter", LEASE);
        permits(holder).joinQueue("export", "holder:a"); // the holder's manager waited for more, then died
        permits(waiter).joinQueue("export", "waiter:b");
        PermitHolders seen = assertInstanceOf(PermitAttempt.Busy.class,
                permits(waiter).tryAcquire("export", 1, 1, "waiter:b:1", waiterSession)).seen().orElseThrow();
        // Without the dead manager's queue place taken back with its permits, it would be first: the waiter busy again.
        granted(permits(waiter).reclaim("export", 1, 1, "waiter:b:2", waiterSession, seen.sessions().get(0)));
        assertEquals(List.of(), permits(waiter).inspect("export").orElseThrow().queue());
    }

    @Test
    void aRenewedSessionIsNotEnded() {
        LockStore holder = newStore();
        String holderSession = holder.openSession("holder", LEASE);
        granted(permits(holder).tryAcquire("export", 1, 1, "holder:a:1", holderSession));
        LockStore waiter = sameStoreAs(holder);
        String waiterSession = waiter.openSession("waiter", LEASE);
        PermitHolders.Seen watched = assertInstanceOf(PermitAttempt.Busy.class,
                permits(waiter).tryAcquire("export", 1, 1, "waiter:a:1", waiterSession)).seen().orElseThrow().sessions().get(0);
        assertTrue(holder.renewSession(holderSession).live());
        assertInstanceOf(PermitAttempt.Busy.class, permits(waiter).reclaim("export", 1, 1, "waiter:a:1", waiterSession, watched));
        assertEquals(List.of(new PermitStore.HeldUnder("export", "holder:a:1", 1)), permits(holder).heldUnder(holderSession));
    }

    @Test
    void aGrantWhoseAnswerWasLostIsCleanedUpByReleasingWhatWasAsked() {
        LockStore store = newStore();
        String session = store.openSession("m1", LEASE);
        permits(store).tryAcquire("export", 1, 1, "m1:a:1", session); // applied; its caller never heard the answer
        assertTrue(permits(store).release("export", "m1:a:1", 1), "the clean-up finds the grant by its owner id");
        assertEquals(0, permits(store).inspect("export").orElseThrow().used());
        assertFalse(permits(store).release("export", "m1:a:1", 1), "a clean-up of a grant that never landed matches nothing");
    }
}
