package io.github.mongolock.admin;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.set;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.FencedWriteRejectedException;
import io.github.mongolock.ForceReleaseRefusedException;
import io.github.mongolock.LockEvent;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockSession;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.mongo.FencedCollection;
import io.github.mongolock.mongo.ForcedRelease;
import io.github.mongolock.mongo.LockAdmin;
import io.github.mongolock.mongo.LockState;
import io.github.mongolock.testing.Await;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Issue 21's admin part: an operator lists locks and frees one whose holder is alive but wedged, fenced. */
@ExtendWith(MongoBackend.class)
class LockAdminTest {

    private static final Duration LEASE = Duration.ofSeconds(1);

    private final TestMongo mongo;
    private final List<MongoLockManager> managers = new ArrayList<>();
    private final List<LockEvent> events = new CopyOnWriteArrayList<>();
    private String database;
    private LockAdmin admin;

    LockAdminTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void freshDatabase() {
        database = mongo.freshDatabase();
        admin = new LockAdmin(mongo.client().getDatabase(database), MongoLockManager.DEFAULT_COLLECTION,
                Duration.ofSeconds(5), "alice@ops-1");
    }

    @AfterEach
    void closeManagers() {
        managers.forEach(MongoLockManager::close);
    }

    private MongoLockManager manager(String instanceId) {
        return manager(instanceId, LEASE);
    }

    private MongoLockManager manager(String instanceId, Duration lease) {
        MongoLockManager manager = MongoLockManager.builder().client(mongo.client()).database(database)
                .instanceId(instanceId).leaseTime(lease).listener(events::add).build();
        managers.add(manager);
        return manager;
    }

    @Test
    void listShowsHoldersHoldCountsTokensAndQueuesInNameOrder() throws Exception {
        MongoLockManager node1 = manager("node-1", MongoLockManager.DEFAULT_LEASE_TIME);
        MongoLockManager node2 = manager("node-2", MongoLockManager.DEFAULT_LEASE_TIME);
        LockSession outer = node1.acquire("job-a");
        LockSession inner = node1.acquire("job-a");
        LockSession other = node1.acquire("job-b");
        LockSession elsewhere = node2.acquire("report");
        CompletableFuture<LockSession> waiting = CompletableFuture.supplyAsync(() -> node2.acquire("job-a", Duration.ofSeconds(10)));
        Await.await(() -> !admin.inspect("job-a").orElseThrow().queue().isEmpty(), "node-2 queued for job-a");

        List<LockState> jobs = admin.list("job-", 10);
        assertEquals(List.of("job-a", "job-b"), jobs.stream().map(LockState::name).toList());
        LockState jobA = jobs.get(0);
        assertEquals(outer.owner(), jobA.owner());
        assertEquals("node-1", jobA.instanceId());
        assertEquals(2, jobA.holds());
        assertEquals(outer.fencingToken(), jobA.fencingToken());
        assertEquals(MongoLockManager.DEFAULT_LEASE_TIME, jobA.lease());
        assertEquals(1, jobA.queue().size());
        assertTrue(jobA.queue().get(0).startsWith("node-2:"), "the waiting manager: " + jobA.queue());
        assertFalse(jobA.minimumHoldKept());
        if (mongo.evaluatesNow()) {
            assertNotNull(jobA.sinceRenewal());
            assertTrue(jobA.sinceRenewal().compareTo(Duration.ofSeconds(10)) < 0, "renewed lately: " + jobA.sinceRenewal());
        }
        assertEquals(List.of("job-a"), admin.list("job-", 1).stream().map(LockState::name).toList(), "bounded");
        assertEquals(List.of("job-a", "job-b", "report"), admin.list("", 10).stream().map(LockState::name).toList());
        assertEquals(List.of(), admin.list("job.", 10), "the prefix is literal, not a pattern");

        inner.close();
        outer.close();
        try (LockSession handed = waiting.get(10, TimeUnit.SECONDS)) {
            assertEquals("node-2", admin.inspect("job-a").orElseThrow().instanceId());
        }
        other.close();
        elsewhere.close();
        assertEquals(List.of(), admin.list("", 10), "free locks are not listed");
        LockState free = admin.inspect("job-a").orElseThrow();
        assertFalse(free.held());
        assertNull(free.owner());
        assertTrue(admin.inspect("never-used").isEmpty());
    }

    @Test
    void aForcedReleaseTellsTheLiveHolderWhyAndFencesItsLateWrites() throws Exception {
        MongoLockManager wedged = manager("node-1");
        MongoLockManager next = manager("node-2");
        FencedCollection<Document> accounts = FencedCollection.of(mongo.collection(database, "accounts"));
        accounts.collection().insertOne(new Document("_id", "acct-1").append("balance", 100L));
        next.acquire("import").close(); // the stand-in's first calls are slow: not part of what is measured
        LockSession old = wedged.acquire("import");
        AtomicLong toldAt = new AtomicLong();
        old.onLeaseLost(() -> toldAt.set(System.nanoTime()));
        accounts.updateOne(old, eq("_id", "acct-1"), set("balance", 90L));

        long releasedAt = System.nanoTime();
        ForcedRelease done = admin.forceRelease("import", "import wedged since 02:10, OPS-4711");
        assertEquals(old.owner(), done.before().owner());
        assertEquals(old.fencingToken(), done.before().fencingToken());
        Await.await(() -> toldAt.get() != 0, "the old holder is told");
        long toldMs = (toldAt.get() - releasedAt) / 1_000_000;
        System.out.printf("[admin] forced release to the holder's LEASE_LOST: %d ms (lease %s, renewal every lease/3)%n",
                toldMs, LEASE);
        assertTrue(toldMs < LEASE.toMillis(), "told within about one renewal interval, not a lease: " + toldMs + " ms");
        assertFalse(old.isHeld());
        Await.await(() -> events.stream().anyMatch(event -> event.kind() == LockEvent.Kind.LEASE_LOST
                && event.owner().equals(old.owner())), "LEASE_LOST fired");

        try (LockSession taken = next.acquire("import", Duration.ofSeconds(5))) {
            assertTrue(taken.fencingToken() > old.fencingToken(), "the next grant's token is greater");
            accounts.updateOne(taken, eq("_id", "acct-1"), set("balance", 80L));
            assertThrows(FencedWriteRejectedException.class, () -> accounts.updateOne(old, eq("_id", "acct-1"), set("balance", 70L)),
                    "the old holder's late write is refused once the next holder wrote");
            assertEquals(80L, accounts.collection().find(eq("_id", "acct-1")).first().getLong("balance"));
        }
        LockLostException lost = assertThrows(LockLostException.class, old::close);
        assertTrue(lost.getMessage().contains("released by an operator: import wedged since 02:10, OPS-4711 (by alice@ops-1)"),
                lost.getMessage());
        LockState.Revocation recorded = admin.inspect("import").orElseThrow().lastRevocation();
        assertEquals(old.owner(), recorded.owner());
        assertEquals("alice@ops-1", recorded.operator());
        assertEquals("import wedged since 02:10, OPS-4711", recorded.reason());
        assertNotNull(recorded.at());
    }

    @Test
    void aForcedReleaseOfALockThatMovedOrIsFreeIsRefusedAndChangesNothing() {
        MongoLockManager node1 = manager("node-1", MongoLockManager.DEFAULT_LEASE_TIME);
        try (LockSession held = node1.acquire("job")) {
            LockState seen = admin.inspect("job").orElseThrow();
            try (LockSession reentered = node1.acquire("job")) {
                ForceReleaseRefusedException refused = assertThrows(ForceReleaseRefusedException.class,
                        () -> admin.forceRelease(seen, "wedged"));
                assertTrue(refused.getMessage().contains("Nothing was changed"), refused.getMessage());
                assertTrue(refused.getMessage().contains("now it is held by " + held.owner()), refused.getMessage());
                LockState now = admin.inspect("job").orElseThrow();
                assertEquals(seen.version() + 1, now.version(), "only the re-entry moved it");
                assertEquals(2, now.holds());
                assertNull(now.lastRevocation());
                assertTrue(reentered.isHeld());
            }
            assertThrows(ForceReleaseRefusedException.class,
                    () -> admin.forceRelease("job", "some-other-owner:0:1", admin.inspect("job").orElseThrow().version(), "x"),
                    "another owner's name: refused");
            assertTrue(held.isHeld());
        }
        LockState free = admin.inspect("job").orElseThrow();
        ForceReleaseRefusedException refused = assertThrows(ForceReleaseRefusedException.class,
                () -> admin.forceRelease("job", "wedged"));
        assertTrue(refused.getMessage().contains("it is free"), refused.getMessage());
        LockState after = admin.inspect("job").orElseThrow();
        assertEquals(List.of(free.version(), free.fencingToken(), 0), List.of(after.version(), after.fencingToken(), after.holds()),
                "nothing changed");
        assertNull(after.lastRevocation());
        assertThrows(ForceReleaseRefusedException.class, () -> admin.forceRelease("never-used", "wedged"));
    }
}
