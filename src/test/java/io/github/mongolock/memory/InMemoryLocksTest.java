package io.github.mongolock.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LeaderElections;
import io.github.mongolock.Leadership;
import io.github.mongolock.LeadershipListener;
import io.github.mongolock.LeadershipOptions;
import io.github.mongolock.LockEvent;
import io.github.mongolock.LockException;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.OnLeaseLost;
import io.github.mongolock.RevocationReason;
import io.github.mongolock.core.ReleaseFeed;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The test kit as a user's plain JUnit test uses it: managers on one in-memory store, and its controls. */
class InMemoryLocksTest {

    private final InMemoryLocks locks = new InMemoryLocks();
    private final List<LockEvent> events1 = new CopyOnWriteArrayList<>();
    private final InMemoryLockManager node1 = locks.manager().instanceId("node-1").listener(events1::add).build();
    private final InMemoryLockManager node2 = locks.newManager("node-2");

    @AfterEach
    void closeAll() {
        locks.close();
    }

    @Test
    void twoManagersExcludeEachOtherAndEveryGrantHasALargerToken() {
        long first;
        try (LockSession held = node1.acquire("job")) {
            first = held.fencingToken();
            assertTrue(node2.tryAcquire("job").isEmpty(), "node-2 must not get a lock node-1 holds");
            assertEquals(held.owner(), node2.inspect("job").orElseThrow().owner());
            assertTrue(held.owner().startsWith("node-1:"), held.owner());
        }
        try (LockSession next = node2.acquire("job", Duration.ZERO)) {
            assertEquals(first + 1, next.fencingToken());
        }
    }

    @Test
    void aNestedAcquireReentersWithTheSameToken() {
        try (LockSession outer = node1.acquire("job"); LockSession inner = node1.acquire("job")) {
            assertEquals(2, inner.holdCount());
            assertEquals(outer.fencingToken(), inner.fencingToken());
            assertEquals(2, node1.inspect("job").orElseThrow().holdCount());
        }
        assertTrue(node1.inspect("job").isEmpty(), "both holds released");
    }

    @Test
    void aMinimumHoldKeepsTheLockTakenAfterItsRelease() {
        long start = System.nanoTime();
        node1.acquire("tick", LockOptions.defaults().holdAtLeast(Duration.ofMillis(400))).close();
        assertTrue(node2.tryAcquire("tick").isEmpty(), "still taken: the minimum hold is not over");
        try (LockSession next = node2.acquire("tick", Duration.ofSeconds(3))) {
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(waitedMs >= 350, "granted after the minimum hold, not before: " + waitedMs + " ms");
            assertEquals(2, next.fencingToken());
        }
    }

    /**
     * A lock kept for its minimum hold after its holder let go: the controls change it at once (nobody holds it to be
     * told, so nothing is waited for; they waited 5 s and threw before) and another owner that takes it over gets a
     * whole lease, not what was left of the minimum hold.
     */
    @Test
    void controlsOfALockKeptForItsMinimumHoldDoNotWaitForAHolderThatLetGo() {
        node1.acquire("tick", LockOptions.defaults().holdAtLeast(Duration.ofSeconds(20))).close();
        long token = locks.takeOver("tick", "batch-node"); // threw after 5 s ("not told") before
        assertEquals(2, token);
        assertEquals("batch-node", node2.inspect("tick").orElseThrow().owner());
        assertTrue(node2.inspect("tick").orElseThrow().expiresAt().isAfter(java.time.Instant.now().plusSeconds(20)),
                "a whole lease (PT30S), not the minimum hold's remainder");
        locks.loseLease("tick");
        node1.acquire("kept", LockOptions.defaults().holdAtLeast(Duration.ofSeconds(20))).close();
        locks.expire("kept");
        try (LockSession next = node2.tryAcquire("kept").orElseThrow()) {
            assertEquals(2, next.fencingToken());
        }
    }

    @Test
    void aReleaseHandsTheLockToTheNextWaiterOfTheSameManagerWithTheNextToken() throws Exception {
        LockSession held = node1.acquire("job");
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
            try (LockSession next = node1.acquire("job", Duration.ofSeconds(5))) {
                return next.fencingToken();
            }
        });
        Thread.sleep(100); // the waiter is parked
        held.close();
        assertEquals(held.fencingToken() + 1, waiter.get(2, TimeUnit.SECONDS));
    }

    @Test
    void aWaiterOnAnotherManagerIsWokenByTheReleaseAtOnce() throws Exception {
        LockSession held = node1.acquire("job");
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
            try (LockSession next = node2.acquire("job", Duration.ofSeconds(10))) {
                return System.nanoTime();
            }
        });
        Thread.sleep(300);
        assertEquals(ReleaseFeed.Status.PUSHING, node2.pushWakeUpStatus(), "node-2 waits for a lock held elsewhere");
        long released = System.nanoTime();
        held.close();
        long wokenAfterMs = TimeUnit.NANOSECONDS.toMillis(waiter.get(3, TimeUnit.SECONDS) - released);
        assertTrue(wokenAfterMs < 500, "pushed, not found by polling: " + wokenAfterMs + " ms");
    }

    @Test
    void loseLeaseTellsTheHolderAndLeavesTheLockFree() {
        LockSession held = node1.acquire("job");
        AtomicBoolean told = new AtomicBoolean();
        held.onLeaseLost(() -> told.set(true));
        locks.loseLease("job");
        assertFalse(held.isHeld());
        assertTrue(told.get(), "the session's loss action ran before the control returned");
        assertEquals(LockEvent.Kind.LEASE_LOST, events1.get(events1.size() - 1).kind());
        assertTrue(node1.inspect("job").isEmpty(), "free");
        try (LockSession next = node2.acquire("job", Duration.ZERO)) {
            assertEquals(held.fencingToken() + 1, next.fencingToken());
            assertThrows(LockLostException.class, held::close, "the late holder is told again, and releases nothing");
            assertTrue(next.isHeld());
        }
        assertTrue(events1.stream().noneMatch(event -> event.name().startsWith("mongolock-in-memory")),
                "the control's own acquisitions are not passed on: " + events1);
    }

    @Test
    void loseLeaseInterruptsWorkThatAskedForIt() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CompletableFuture<Boolean> work = CompletableFuture.supplyAsync(() -> {
            try (LockSession held = node1.acquire("import", LockOptions.defaults().onLeaseLost(OnLeaseLost.INTERRUPT))) {
                inside.countDown();
                Thread.sleep(10_000);
                return false;
            } catch (InterruptedException interrupted) {
                return true; // the close() that followed threw LockLostException, suppressed by this one
            }
        });
        assertTrue(inside.await(2, TimeUnit.SECONDS));
        locks.loseLease("import");
        assertTrue(work.get(2, TimeUnit.SECONDS), "the work was interrupted");
    }

    @Test
    void expireLetsTheNextWaiterTakeTheLockAtOnceWithTheNextToken() throws Exception {
        LockSession crashed = node1.acquire("job");
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
            try (LockSession next = node2.acquire("job", Duration.ofSeconds(10))) {
                return next.fencingToken();
            }
        });
        Thread.sleep(200);
        assertFalse(waiter.isDone(), "a 30 s lease is not over by itself");
        long expired = System.nanoTime();
        locks.expire("job");
        assertFalse(crashed.isHeld(), "its manager is alive here, so it is told, as at its next renewal");
        assertEquals(crashed.fencingToken() + 1, waiter.get(3, TimeUnit.SECONDS));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - expired) < 1_000, "at once, not after a lease");
        assertThrows(LockLostException.class, crashed::close);
    }

    @Test
    void takeOverGivesTheLockToANamedOwnerAndTellsTheHolder() {
        LockSession held = node1.acquire("job");
        long token = locks.takeOver("job", "batch-node");
        assertEquals(held.fencingToken() + 1, token);
        assertFalse(held.isHeld());
        assertEquals(LockEvent.Kind.LEASE_LOST, events1.get(events1.size() - 1).kind());
        assertEquals("batch-node", node2.inspect("job").orElseThrow().owner());
        assertTrue(node2.tryAcquire("job").isEmpty(), "busy: batch-node holds it");
        locks.expire("job"); // batch-node is gone
        try (LockSession next = node2.tryAcquire("job").orElseThrow()) {
            assertEquals(token + 1, next.fencingToken());
        }
    }

    @Test
    void aForcedLossEndsATermAndTheNextLeaderHasAHigherOne() throws Exception {
        LeadershipOptions fast = LeadershipOptions.defaults().leaseTime(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20));
        List<String> log = new CopyOnWriteArrayList<>();
        try (LeaderElections elections1 = new LeaderElections(node1); LeaderElections elections2 = new LeaderElections(node2)) {
            Leadership first = elections1.join("leader", fast, recording("node-1", log));
            waitUntil(first::isLeader);
            Leadership second = elections2.join("leader", fast, recording("node-2", log));
            long firstTerm = first.term().orElseThrow();
            locks.loseLease("leader");
            assertFalse(first.isLeader());
            waitUntil(() -> first.isLeader() || second.isLeader());
            Leadership next = first.isLeader() ? first : second;
            assertTrue(next.term().orElseThrow() > firstTerm, "terms grow: " + log);
            waitUntil(() -> log.contains("node-1 revoked " + firstTerm + " LEASE_LOST"));
        }
    }

    @Test
    void controlsOfALockNobodyHoldsSaySo() {
        LockException notHeld = assertThrows(LockException.class, () -> locks.loseLease("free"));
        assertTrue(notHeld.getMessage().contains("\"free\" is not held"), notHeld.getMessage());
        assertThrows(LockException.class, () -> locks.expire("free"));
        assertEquals(1, locks.takeOver("free", "batch-node"), "a free lock is simply granted to that owner");
    }

    @Test
    void twoFactoriesAreIndependentAndClosingOneClosesItsManagers() {
        try (InMemoryLocks other = new InMemoryLocks()) {
            InMemoryLockManager elsewhere = other.newManager("elsewhere");
            LockSession held = node1.acquire("job");
            try (LockSession alsoHeld = elsewhere.acquire("job", Duration.ZERO)) {
                assertEquals(1, alsoHeld.fencingToken(), "another store, another lock");
            }
            locks.close();
            assertFalse(held.isHeld());
            assertThrows(LockException.class, () -> node2.acquire("job"), "closed with its factory");
            assertThrows(LockException.class, () -> locks.newManager("late"));
            assertTrue(other.store().inspect("job").isEmpty());
        }
    }

    private static LeadershipListener recording(String node, List<String> log) {
        return new LeadershipListener() {
            @Override
            public void granted(long term) {
                log.add(node + " granted " + term);
            }

            @Override
            public void revoked(long term, RevocationReason reason) {
                log.add(node + " revoked " + term + " " + reason);
            }
        };
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 5 s");
            Thread.sleep(10);
        }
    }
}
