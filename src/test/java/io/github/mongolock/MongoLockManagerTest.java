package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.mongo.MongoLockStore;
import io.github.mongolock.testing.DeadHolder;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The public API, two managers standing for two machines, against the test backend. */
@ExtendWith(MongoBackend.class)
class MongoLockManagerTest {

    private final TestMongo mongo;
    private final List<MongoLockManager> managers = new ArrayList<>();
    private String database;

    MongoLockManagerTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void freshDatabase() {
        database = mongo.freshDatabase();
    }

    @AfterEach
    void closeManagers() {
        managers.forEach(MongoLockManager::close);
    }

    private MongoLockManager node(UnaryOperator<MongoLockManager.Builder> settings) {
        MongoLockManager manager = settings.apply(MongoLockManager.builder().client(mongo.client()).database(database)).build();
        managers.add(manager);
        return manager;
    }

    private MongoLockManager node() {
        return node(builder -> builder);
    }

    private static <T> T onOtherThread(java.util.concurrent.Callable<T> work) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return work.call();
            } catch (Exception failure) {
                throw new java.util.concurrent.CompletionException(failure);
            }
        }).get(30, TimeUnit.SECONDS);
    }

    @Test
    void locksAndShowsTheHolder() {
        MongoLockManager node = node(builder -> builder.instanceId("web-1"));
        try (LockSession session = node.acquire("invoice-run")) {
            assertEquals("invoice-run", session.name());
            assertEquals(1, session.holdCount());
            assertTrue(session.isHeld());
            LockInfo info = node.inspect("invoice-run").orElseThrow();
            assertEquals(session.owner(), info.owner());
            // <instance id>:<a nonce of 122 random bits, in 32 hex digits>:<acquisition number>
            assertTrue(info.owner().matches("web-1:[0-9a-f]{32}:\\d+"), info.owner());
            assertEquals(session.fencingToken(), info.fencingToken());
            assertTrue(info.expiresAt().isAfter(Instant.now().plusSeconds(20)));
        }
        assertEquals(Optional.empty(), node.inspect("invoice-run"));
    }

    @Test
    void aSecondNodeIsRefusedWhileTheFirstHoldsIt() {
        MongoLockManager first = node();
        MongoLockManager second = node();
        try (LockSession held = first.acquire("job")) {
            assertEquals(Optional.empty(), second.tryAcquire("job"));
            LockTimeoutException timeout = assertThrows(LockTimeoutException.class,
                    () -> second.acquire("job", Duration.ofMillis(300)));
            assertEquals("job", timeout.lockName());
            assertTrue(timeout.getMessage().contains("\"job\"") && timeout.getMessage().contains(held.owner())
                    && timeout.getMessage().contains("PT0.3S"), timeout.getMessage());
            assertTrue(held.isHeld());
        }
    }

    @Test
    void namesAreIndependent() {
        MongoLockManager first = node();
        MongoLockManager second = node();
        try (LockSession a = first.acquire("job-a"); LockSession b = second.acquire("job-b")) {
            assertTrue(a.isHeld() && b.isHeld());
        }
    }

    @Test
    void lockUnlockLockWithGrowingTokens() {
        MongoLockManager first = node();
        MongoLockManager second = node();
        long previous = 0;
        for (int round = 0; round < 6; round++) {
            MongoLockManager node = round % 2 == 0 ? first : second;
            try (LockSession session = node.acquire("job", Duration.ZERO)) {
                assertTrue(session.fencingToken() > previous, session.fencingToken() + " after " + previous);
                previous = session.fencingToken();
            }
        }
        assertEquals(6, previous);
    }

    @Test
    void reentryCountsHoldsAndKeepsTheToken() {
        MongoLockManager node = node();
        MongoLockManager other = node();
        LockSession outer = node.acquire("job");
        LockSession middle = node.acquire("job");
        LockSession inner = node.tryAcquire("job").orElseThrow();
        assertEquals(List.of(1, 2, 3), List.of(outer.holdCount(), middle.holdCount(), inner.holdCount()));
        assertEquals(outer.fencingToken(), inner.fencingToken());
        assertEquals(3, node.inspect("job").orElseThrow().holdCount());
        inner.close();
        middle.close();
        assertEquals(1, node.inspect("job").orElseThrow().holdCount());
        assertEquals(Optional.empty(), other.tryAcquire("job"), "still held after the inner releases");
        outer.close();
        try (LockSession next = other.acquire("job", Duration.ZERO)) {
            assertEquals(outer.fencingToken() + 1, next.fencingToken());
        }
    }

    @Test
    void reacquiresRightAfterRelease() {
        MongoLockManager node = node();
        MongoLockManager other = node();
        for (int i = 0; i < 20; i++) {
            node.acquire("job", Duration.ZERO).close();
            other.acquire("job", Duration.ZERO).close();
        }
        assertEquals(Optional.empty(), node.inspect("job"));
    }

    @Test
    void aCrashedHoldersLockFreesItselfWhenItsLeaseEnds() throws Exception {
        // A holder that crashed: its document is there, and nothing renews it.
        MongoLockStore store = new MongoLockStore(mongo.collection(database, MongoLockManager.DEFAULT_COLLECTION));
        AcquireAttempt.Granted crashed = DeadHolder.grant(store, "job", "crashed-node:0:1", Duration.ofMillis(500));
        MongoLockManager survivor = node();
        assertEquals(Optional.empty(), survivor.tryAcquire("job"));
        long start = System.nanoTime();
        try (LockSession session = survivor.acquire("job", Duration.ofSeconds(10))) {
            double waitedMs = (System.nanoTime() - start) / 1e6;
            System.out.printf("[lease expiry] took over a crashed holder's 500 ms lease after %.0f ms of waiting%n", waitedMs);
            assertTrue(session.fencingToken() > crashed.fencingToken());
            assertEquals(session.owner(), survivor.inspect("job").orElseThrow().owner());
        }
    }

    @Test
    void renewalKeepsALockAlivePastItsLease() throws Exception {
        MongoLockManager holder = node(builder -> builder.leaseTime(Duration.ofMillis(300)));
        MongoLockManager other = node();
        try (LockSession session = holder.acquire("job")) {
            Thread.sleep(1_200); // four leases
            assertTrue(session.isHeld());
            assertEquals(Optional.empty(), other.tryAcquire("job"));
            assertEquals(session.fencingToken(), other.inspect("job").orElseThrow().fencingToken());
        }
    }

    @Test
    void aWaiterOnAnotherNodeGetsTheLockAfterRelease() throws Exception {
        MongoLockManager first = node();
        MongoLockManager second = node();
        LockSession held = first.acquire("job");
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
            try (LockSession session = second.acquire("job", Duration.ofSeconds(20))) {
                return session.fencingToken();
            }
        });
        Thread.sleep(300);
        assertFalse(waiter.isDone());
        held.close();
        assertEquals(held.fencingToken() + 1, waiter.get(20, TimeUnit.SECONDS));
    }

    @Test
    void listenersHearAcquisitionsAndReleases() {
        List<LockEvent> events = new CopyOnWriteArrayList<>();
        MongoLockManager node = node(builder -> builder.listener(events::add).listener(event -> {
            throw new IllegalStateException("a broken listener must not break the lock");
        }));
        String owner;
        try (LockSession outer = node.acquire("job"); LockSession inner = node.acquire("job")) {
            assertEquals(2, inner.holdCount());
            owner = outer.owner();
        }
        assertEquals(List.of("ACQUIRED 1", "ACQUIRED 2", "RELEASED 1", "RELEASED 0"),
                events.stream().map(e -> e.kind() + " " + e.holdCount()).toList());
        assertTrue(events.stream().allMatch(e -> e.name().equals("job") && e.fencingToken() == 1
                && e.owner().equals(owner)));
    }

    @Test
    void closingTheManagerReleasesWhatItHolds() {
        MongoLockManager node = node();
        MongoLockManager other = node();
        LockSession session = node.acquire("job");
        node.close();
        assertFalse(session.isHeld());
        assertTrue(other.tryAcquire("job").isPresent());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "bad\0name"})
    void rejectsBadNamesNamingTheRule(String name) {
        MongoLockManager node = node();
        LockConfigurationException bad = assertThrows(LockConfigurationException.class, () -> node.acquire(name));
        assertTrue(bad.getMessage().contains("Lock name"), bad.getMessage());
        assertThrows(LockConfigurationException.class, () -> node.tryAcquire(name));
        assertThrows(LockConfigurationException.class, () -> node.inspect(name));
    }

    @Test
    void rejectsNullAndOversizedNames() {
        MongoLockManager node = node();
        assertTrue(assertThrows(LockConfigurationException.class, () -> node.acquire(null)).getMessage().contains("null"));
        String tooLong = "é".repeat(257); // 514 UTF-8 bytes
        LockConfigurationException bad = assertThrows(LockConfigurationException.class, () -> node.acquire(tooLong));
        assertTrue(bad.getMessage().contains("514 UTF-8 bytes") && bad.getMessage().contains("512"), bad.getMessage());
        try (LockSession fits = node.acquire("é".repeat(256))) {
            assertTrue(fits.isHeld(), "512 bytes are allowed");
        }
    }

    @Test
    void rejectsBadDurationsNamingTheValue() {
        MongoLockManager node = node();
        LockConfigurationException negativeWait = assertThrows(LockConfigurationException.class,
                () -> node.acquire("job", Duration.ofSeconds(-1)));
        assertTrue(negativeWait.getMessage().contains("PT-1S") && negativeWait.getMessage().contains("negative"),
                negativeWait.getMessage());
        LockConfigurationException zeroLease = assertThrows(LockConfigurationException.class,
                () -> node.acquire("job", LockOptions.defaults().leaseTime(Duration.ZERO)));
        assertTrue(zeroLease.getMessage().contains("leaseTime = PT0S") && zeroLease.getMessage().contains("PT0.1S"),
                zeroLease.getMessage());
        assertThrows(LockConfigurationException.class,
                () -> node.acquire("job", LockOptions.defaults().leaseTime(Duration.ofDays(366))));
        assertEquals(Optional.empty(), node.inspect("job"), "nothing was written for rejected requests");
        try (LockSession forever = node.acquire("job", Duration.ofSeconds(Long.MAX_VALUE))) {
            assertTrue(forever.isHeld(), "an enormous wait is allowed (it just waits as long as needed)");
        }
    }

    @Test
    void rejectsBadBuilderSettingsNamingThem() {
        LockConfigurationException none = assertThrows(LockConfigurationException.class,
                () -> MongoLockManager.builder().database("db").build());
        assertTrue(none.getMessage().contains("uri(") && none.getMessage().contains("client("), none.getMessage());
        LockConfigurationException both = assertThrows(LockConfigurationException.class,
                () -> MongoLockManager.builder().uri("mongodb://127.0.0.1").client(mongo.client()).database("db").build());
        assertTrue(both.getMessage().contains("Both"), both.getMessage());
        LockConfigurationException noDatabase = assertThrows(LockConfigurationException.class,
                () -> MongoLockManager.builder().uri("mongodb://127.0.0.1:1").build());
        assertTrue(noDatabase.getMessage().contains("database"), noDatabase.getMessage());
        LockConfigurationException badUri = assertThrows(LockConfigurationException.class,
                () -> MongoLockManager.builder().uri("http://user:secret@example").database("db").build());
        assertTrue(badUri.getMessage().contains("http://***@example") && !badUri.getMessage().contains("secret"),
                badUri.getMessage());
        LockConfigurationException badLease = assertThrows(LockConfigurationException.class,
                () -> MongoLockManager.builder().client(mongo.client()).database("db").leaseTime(Duration.ofMillis(5)).build());
        assertTrue(badLease.getMessage().contains("leaseTime = PT0.005S"), badLease.getMessage());
        LockConfigurationException badCollection = assertThrows(LockConfigurationException.class,
                () -> MongoLockManager.builder().client(mongo.client()).database("db").collection("a$b").build());
        assertTrue(badCollection.getMessage().contains("\"a$b\""), badCollection.getMessage());
        LockConfigurationException badDatabase = assertThrows(LockConfigurationException.class,
                () -> MongoLockManager.builder().client(mongo.client()).database("a/b").build());
        assertTrue(badDatabase.getMessage().contains("\"a/b\""), badDatabase.getMessage());
    }

    @Test
    void theDatabaseMayComeFromTheUri() {
        try (MongoLockManager node = MongoLockManager.builder().uri(mongo.uri() + "/" + database).build();
             LockSession session = node.acquire("job")) {
            assertEquals(session.fencingToken(), new MongoLockStore(mongo.collection(database, "locks"))
                    .inspect("job").orElseThrow().fencingToken());
        }
    }

    @Test
    void anUnreachableStoreGivesLockStoreException() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        try (MongoLockManager node = MongoLockManager.builder()
                .uri("mongodb://127.0.0.1:" + closedPort + "/locks_db")
                .storeTimeout(Duration.ofMillis(500))
                .build()) {
            long start = System.nanoTime();
            LockStoreException down = assertThrows(LockStoreException.class, () -> node.acquire("job"));
            double ms = (System.nanoTime() - start) / 1e6;
            System.out.printf("[store down] LockStoreException after %.0f ms (storeTimeout PT0.5S)%n", ms);
            assertTrue(down.getMessage().contains("\"job\"") && down.getMessage().contains("locks_db.locks"), down.getMessage());
            assertThrows(LockStoreException.class, () -> node.inspect("job"));
            assertThrows(LockStoreException.class, () -> node.tryAcquire("job"));
        }
    }

    @Test
    void twoThreadsAndTwoNodesExcludeEachOtherOnTheSameName() throws Exception {
        MongoLockManager node = node();
        try (LockSession held = node.acquire("job")) {
            assertEquals(Optional.empty(), onOtherThread(() -> node.tryAcquire("job")), "another thread of the same node");
            MongoLockManager sameLabel = node(builder -> builder.instanceId(node.instanceId()));
            assertEquals(Optional.empty(), sameLabel.tryAcquire("job"), "a node given the same instance id");
            assertTrue(held.isHeld());
        }
    }

    /** Issue 10's fast path: a lease that ended hours ago by the database's clock is taken over at once. */
    @Test
    void aLockWhoseHolderDiedLongAgoIsTakenAtOnceEvenWithALongLease() {
        MongoLockStore store = new MongoLockStore(mongo.collection(database, MongoLockManager.DEFAULT_COLLECTION));
        DeadHolder.grant(store, "nightly", "crashed-node:0:1", Duration.ofHours(1));
        DeadHolder.renewedAgo(mongo.collection(database, MongoLockManager.DEFAULT_COLLECTION), "nightly", Duration.ofHours(3));
        MongoLockManager node = node();
        long start = System.nanoTime();
        try (LockSession session = node.acquire("nightly", Duration.ofSeconds(5))) {
            double waitedMs = (System.nanoTime() - start) / 1e6;
            System.out.printf("[fast path] took over a 1 h lease that ended 2 h ago after %.0f ms%n", waitedMs);
            assertEquals(2, session.fencingToken());
        }
    }
}
