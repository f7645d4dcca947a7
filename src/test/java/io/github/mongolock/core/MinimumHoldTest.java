package io.github.mongolock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link LockOptions#holdAtLeast}: a lock released early stays taken until the minimum hold has passed
 * since its grant, carried by the document (no holder needs to live), and then frees itself. Each test
 * prints how long after the grant the next one came: the accuracy figure.
 */
@ExtendWith(MongoBackend.class)
class MinimumHoldTest {

    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final Duration MINIMUM = Duration.ofMillis(1500);

    private final TestMongo mongo;
    private CoordinatorNodes nodes;
    private LockStore store;

    MinimumHoldTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void store() {
        nodes = new CoordinatorNodes(mongo);
        store = nodes.realStore;
    }

    @AfterEach
    void closeAll() {
        nodes.close();
    }

    private LockCoordinator node(String label, Duration lease) {
        return nodes.node(label, store, lease, RetryBackoff.standard(), List.of());
    }

    private static LockOptions minimum(Duration holdAtLeast) {
        return LockOptions.defaults().waitTime(Duration.ZERO).holdAtLeast(holdAtLeast);
    }

    /** Acquires with {@code holdAtLeast}, releases at once; returns the next grant's delay after the call began. */
    private long nextGrantAfterMillis(LockCoordinator first, LockCoordinator next, Duration holdAtLeast) {
        long askedAt = System.nanoTime();
        LockSession job = first.tryAcquire("nightly", minimum(holdAtLeast)).orElseThrow();
        long token = job.fencingToken();
        job.close();
        assertEquals(Optional.empty(), next.tryAcquire("nightly"), "released early: still taken");
        LockInfo shown = store.inspect("nightly").orElseThrow();
        assertEquals(job.owner(), shown.owner(), "shown as the releasing owner's until the hold is over");
        try (LockSession later = next.acquire("nightly", Duration.ofSeconds(30))) {
            long afterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - askedAt);
            assertEquals(token + 1, later.fencingToken());
            assertTrue(afterMillis >= holdAtLeast.toMillis(), "granted again after " + afterMillis + " ms, before "
                    + holdAtLeast.toMillis() + " ms");
            return afterMillis;
        }
    }

    @Test
    void aLockReleasedEarlyStaysTakenForTheMinimumHoldThenFreesItself() {
        long after = nextGrantAfterMillis(node("a", LEASE), node("b", LEASE), MINIMUM);
        System.out.println("[minimum hold] " + MINIMUM.toMillis() + " ms, released at once: next grant after " + after + " ms");
    }

    @Test
    void aMinimumHoldLongerThanTheLeaseOutlivesTheRenewals() {
        Duration shortLease = Duration.ofMillis(400);
        long after = nextGrantAfterMillis(node("a", shortLease), node("b", shortLease), MINIMUM);
        System.out.println("[minimum hold] " + MINIMUM.toMillis() + " ms with a " + shortLease.toMillis()
                + " ms lease: next grant after " + after + " ms");
    }

    @Test
    void theHolderGoingAwayAfterTheReleaseNeitherShortensNorExtendsIt() {
        LockCoordinator first = node("a", LEASE);
        LockCoordinator next = node("b", LEASE);
        long askedAt = System.nanoTime();
        first.tryAcquire("nightly", minimum(MINIMUM)).orElseThrow().close();
        first.close(); // the process stops: nothing of it is left to keep or free the lock
        assertEquals(Optional.empty(), next.tryAcquire("nightly"), "still taken after its holder's manager closed");
        try (LockSession later = next.acquire("nightly", Duration.ofSeconds(30))) {
            long afterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - askedAt);
            assertTrue(afterMillis >= MINIMUM.toMillis() && afterMillis < MINIMUM.toMillis() + LEASE.toMillis(),
                    "next grant after " + afterMillis + " ms: the minimum, not the lease, decided");
            System.out.println("[minimum hold] " + MINIMUM.toMillis() + " ms, holder closed after the release: next grant after "
                    + afterMillis + " ms");
        }
    }

    @Test
    void aLoneInstancesNextTickFindsTheLockFreeOnceTheMinimumHoldIsOver() throws Exception {
        // One instance, one job: the next tick's single attempt is this manager's first look at the lock.
        LockCoordinator only = node("a", LEASE);
        only.tryAcquire("nightly", minimum(MINIMUM)).orElseThrow().close();
        Thread.sleep(MINIMUM.toMillis() + 300);
        assertTrue(only.tryAcquire("nightly", minimum(MINIMUM)).isPresent(),
                "the hold is over: the next tick runs, without watching the lock for a whole minimum hold first");
    }

    @Test
    void aHoldLongerThanTheMinimumIsReleasedAtOnce() throws Exception {
        LockCoordinator first = node("a", LEASE);
        LockSession job = first.tryAcquire("nightly", minimum(Duration.ofMillis(100))).orElseThrow();
        Thread.sleep(200);
        job.close();
        try (LockSession next = node("b", LEASE).tryAcquire("nightly").orElseThrow()) {
            assertEquals(job.fencingToken() + 1, next.fencingToken());
        }
    }

    @Test
    void theSameManagersNextCallerIsNotHandedTheLockBeforeTheMinimumHold() throws Exception {
        LockCoordinator node = node("a", LEASE);
        long askedAt = System.nanoTime();
        LockSession job = node.acquire("nightly", LockOptions.defaults().holdAtLeast(MINIMUM));
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
            try (LockSession next = node.acquire("nightly", Duration.ofSeconds(30))) {
                return System.nanoTime();
            }
        });
        Thread.sleep(100); // the waiter is in line
        job.close();
        long afterMillis = TimeUnit.NANOSECONDS.toMillis(waiter.get(30, TimeUnit.SECONDS) - askedAt);
        assertTrue(afterMillis >= MINIMUM.toMillis(), "the local waiter got it after " + afterMillis + " ms");
    }

    @Test
    void aReentrantAcquireCanLengthenTheMinimumHoldButNotShortenIt() {
        LockCoordinator first = node("a", LEASE);
        LockCoordinator next = node("b", LEASE);
        long askedAt = System.nanoTime();
        LockSession outer = first.acquire("nightly", LockOptions.defaults().holdAtLeast(MINIMUM));
        first.acquire("nightly", LockOptions.defaults().holdAtLeast(Duration.ofMillis(10))).close();
        outer.close();
        try (LockSession later = next.acquire("nightly", Duration.ofSeconds(30))) {
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - askedAt) >= MINIMUM.toMillis());
        }
    }

    @Test
    void aNegativeOrHugeMinimumHoldIsRefusedNamingTheValue() {
        LockCoordinator node = node("a", LEASE);
        LockConfigurationException negative = assertThrows(LockConfigurationException.class,
                () -> node.acquire("nightly", LockOptions.defaults().holdAtLeast(Duration.ofSeconds(-1))));
        assertTrue(negative.getMessage().contains("holdAtLeast = PT-1S is out of range"), negative.getMessage());
        LockConfigurationException huge = assertThrows(LockConfigurationException.class,
                () -> node.acquire("nightly", LockOptions.defaults().holdAtLeast(Duration.ofDays(366))));
        assertTrue(huge.getMessage().contains("PT8784H"), huge.getMessage());
        assertEquals(Optional.empty(), store.inspect("nightly"), "nothing was acquired");
    }
}
