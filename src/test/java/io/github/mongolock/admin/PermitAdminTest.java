package io.github.mongolock.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.ForceReleaseRefusedException;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockOptions;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.PermitHold;
import io.github.mongolock.Permits;
import io.github.mongolock.mongo.ForcedPermitRelease;
import io.github.mongolock.mongo.LockAdmin;
import io.github.mongolock.mongo.PermitsState;
import io.github.mongolock.testing.Await;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Issue 32's admin part: an operator lists semaphores with their holders and takes back one wedged holder's permits. */
@ExtendWith(MongoBackend.class)
class PermitAdminTest {

    private static final Duration LEASE = Duration.ofSeconds(1);

    private final TestMongo mongo;
    private final List<MongoLockManager> managers = new ArrayList<>();
    private String database;
    private LockAdmin admin;

    PermitAdminTest(TestMongo mongo) {
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

    private MongoLockManager manager(String instanceId, Duration lease) {
        MongoLockManager manager = MongoLockManager.builder().client(mongo.client()).database(database)
                .instanceId(instanceId).leaseTime(lease).build();
        managers.add(manager);
        return manager;
    }

    @Test
    void listShowsSemaphoresInUseWithEachHoldersPermitsAndSession() {
        MongoLockManager node1 = manager("node-1", MongoLockManager.DEFAULT_LEASE_TIME);
        MongoLockManager node2 = manager("node-2", MongoLockManager.DEFAULT_LEASE_TIME);
        PermitHold one = node1.permits("export", 3).acquire();
        PermitHold two = node2.permits("export", 3).acquire(2, LockOptions.defaults());
        PermitHold other = node1.permits("import", 1).acquire();
        node1.acquire("export").close(); // a lock of the same name is another thing: not listed

        List<PermitsState> listed = admin.listPermits("", 10);
        assertEquals(List.of("export", "import"), listed.stream().map(PermitsState::name).toList());
        PermitsState export = listed.get(0);
        assertEquals(3, export.limit());
        assertEquals(3, export.used());
        assertEquals(0, export.free());
        assertEquals(two.fencingToken(), export.fencingToken());
        assertEquals(List.of(one.owner(), two.owner()), export.holders().stream().map(PermitsState.Holder::owner).toList());
        PermitsState.Holder first = export.holders().get(0);
        assertEquals(1, first.permits());
        assertEquals("node-1", first.instanceId());
        assertEquals("live", first.sessionState());
        assertEquals(MongoLockManager.DEFAULT_LEASE_TIME, first.lease());
        assertNotNull(first.session());
        assertEquals(2, export.holders().get(1).permits());
        assertEquals("node-2", export.holders().get(1).instanceId());
        if (mongo.evaluatesNow()) {
            assertNotNull(first.sinceRenewal());
        }
        assertEquals(List.of(), admin.list("", 10), "the lock list shows no semaphore");
        // A manager queued for a semaphore (the fairness queue): listed with the semaphores, never as a lock.
        mongo.collection(database, MongoLockManager.DEFAULT_COLLECTION).updateOne(
                new Document("_id", new Document("mongolock", "permits").append("name", "export")),
                new Document("$push", new Document("queue", "node-3:0")));
        assertEquals(List.of(), admin.list("", 10), "a semaphore with a queue is not a lock");
        assertEquals(List.of("node-3:0"), admin.listPermits("", 10).get(0).queue());
        mongo.collection(database, MongoLockManager.DEFAULT_COLLECTION).updateOne(
                new Document("_id", new Document("mongolock", "permits").append("name", "export")),
                new Document("$pull", new Document("queue", "node-3:0")));
        assertEquals(List.of("import"), admin.listPermits("imp", 10).stream().map(PermitsState::name).toList());
        assertEquals(List.of("export"), admin.listPermits("", 1).stream().map(PermitsState::name).toList(), "bounded");
        assertEquals(List.of(), admin.listPermits("exp.", 10), "the prefix is literal");

        one.close();
        two.close();
        other.close();
        assertEquals(List.of(), admin.listPermits("", 10), "semaphores with no permit held are not listed");
        PermitsState free = admin.inspectPermits("export").orElseThrow();
        assertEquals(0, free.used());
        assertEquals(List.of(), free.holders());
        assertNull(free.lastRevocation());
        assertTrue(admin.inspectPermits("never-used").isEmpty());
    }

    @Test
    void aForcedReleaseTakesBackOneHoldersPermitsAndTheHolderLearnsItAtItsNextRenewal() throws Exception {
        MongoLockManager wedged = manager("node-1", LEASE);
        MongoLockManager next = manager("node-2", LEASE);
        Permits exports = wedged.permits("export", 2);
        next.permits("export", 2).acquire().close(); // the stand-in's first calls are slow: not part of what is measured
        PermitHold kept = exports.acquire();
        PermitHold old = exports.acquire();
        AtomicLong toldAt = new AtomicLong();
        old.onLeaseLost(() -> toldAt.set(System.nanoTime()));
        long before = admin.inspectPermits("export").orElseThrow().version();

        long releasedAt = System.nanoTime();
        ForcedPermitRelease done = admin.forceReleasePermits("export", old.owner(), "export wedged, OPS-4712");
        assertTrue(done.sessionTold());
        assertEquals(old.owner(), done.holder().owner());
        assertEquals(1, done.holder().permits());
        assertEquals(before, done.before().version());
        assertEquals("alice@ops-1", done.operator());
        PermitsState after = admin.inspectPermits("export").orElseThrow();
        assertEquals(1, after.used(), "the permit is free at once");
        assertEquals(before + 1, after.version());
        assertEquals(List.of(kept.owner()), after.holders().stream().map(PermitsState.Holder::owner).toList());
        assertEquals(old.owner(), after.lastRevocation().owner());
        assertEquals("alice@ops-1", after.lastRevocation().operator());
        assertEquals("export wedged, OPS-4712", after.lastRevocation().reason());
        assertNotNull(after.lastRevocation().at());
        try (PermitHold taken = next.permits("export", 2).tryAcquire().orElseThrow()) {
            assertTrue(taken.fencingToken() > old.fencingToken());
        }

        Await.await(() -> toldAt.get() != 0, "the old holder is told");
        long toldMs = (toldAt.get() - releasedAt) / 1_000_000;
        System.out.printf("[admin] forced release of permits to the holder's onLeaseLost: %d ms (lease %s, renewal every"
                + " lease/3)%n", toldMs, LEASE);
        assertTrue(toldMs < LEASE.toMillis(), "told within about one renewal interval, not a lease: " + toldMs + " ms");
        assertFalse(old.isHeld());
        assertTrue(kept.isHeld(), "the other holder of the same manager keeps its permit");
        LockLostException lost = assertThrows(LockLostException.class, old::close);
        assertTrue(lost.getMessage().contains("an operator released them"), lost.getMessage());
        old.close(); // idempotent: told once
        kept.close();
        assertEquals(0, admin.inspectPermits("export").orElseThrow().used());
    }

    @Test
    void aForcedReleaseOfAnUnknownSemaphoreOrHolderIsRefusedNamingWhatThereIs() {
        MongoLockManager node1 = manager("node-1", MongoLockManager.DEFAULT_LEASE_TIME);
        try (PermitHold held = node1.permits("export", 2).acquire()) {
            ForceReleaseRefusedException noSuchName = assertThrows(ForceReleaseRefusedException.class,
                    () -> admin.forceReleasePermits("exports", held.owner(), "wedged"));
            assertTrue(noSuchName.getMessage().contains("there is no semaphore named \"exports\""), noSuchName.getMessage());
            assertTrue(noSuchName.getMessage().contains("the semaphores there are \"export\""), noSuchName.getMessage());
            assertTrue(noSuchName.getMessage().contains("Nothing was changed"), noSuchName.getMessage());
            assertEquals("exports", noSuchName.lockName());

            PermitsState seen = admin.inspectPermits("export").orElseThrow();
            ForceReleaseRefusedException noSuchOwner = assertThrows(ForceReleaseRefusedException.class,
                    () -> admin.forceReleasePermits("export", "node-9:0:p1", "wedged"));
            assertTrue(noSuchOwner.getMessage().contains("node-9:0:p1 holds none of its permits"), noSuchOwner.getMessage());
            assertTrue(noSuchOwner.getMessage().contains("its holders now are " + held.owner() + " (1 permit(s))"),
                    noSuchOwner.getMessage());
            PermitsState now = admin.inspectPermits("export").orElseThrow();
            assertEquals(List.of(seen.version(), seen.used(), seen.holders().get(0).owner()),
                    List.of(now.version(), now.used(), now.holders().get(0).owner()), "nothing changed");
            assertNull(now.lastRevocation());
            assertTrue(held.isHeld());
        }
        assertThrows(ForceReleaseRefusedException.class, () -> admin.forceReleasePermits("export", "node-1:0:p1", "x"),
                "a holder that released: refused");
        assertThrows(io.github.mongolock.LockConfigurationException.class,
                () -> admin.forceReleasePermits("export", "node-1:0:p1", " "), "a reason is required");
    }

    @Test
    void aHolderWhoseSessionEndedOrIsGoneIsListedWithThatState() {
        MongoLockManager node1 = manager("node-1", MongoLockManager.DEFAULT_LEASE_TIME);
        MongoLockManager node2 = manager("node-2", MongoLockManager.DEFAULT_LEASE_TIME);
        PermitHold ended = node1.permits("export", 3).acquire();
        PermitHold gone = node2.permits("export", 3).acquire();
        var locks = mongo.collection(database, MongoLockManager.DEFAULT_COLLECTION);
        String endedSession = admin.inspectPermits("export").orElseThrow().holders().get(0).session();
        String goneSession = admin.inspectPermits("export").orElseThrow().holders().get(1).session();
        // As a waiter's end of a session it watched unrenewed, and the idle clean-up's removal of an ended one.
        locks.updateOne(new Document("_id", new Document("mongolock", "session").append("id", endedSession)),
                new Document("$set", new Document("state", "ended")));
        locks.deleteOne(new Document("_id", new Document("mongolock", "session").append("id", goneSession)));

        List<PermitsState.Holder> holders = admin.listPermits("", 10).get(0).holders();
        assertEquals(List.of(ended.owner(), gone.owner()), holders.stream().map(PermitsState.Holder::owner).toList());
        assertEquals(List.of("ended", "missing"), holders.stream().map(PermitsState.Holder::sessionState).toList());
        assertNull(holders.get(0).lease());
        assertNull(holders.get(0).sinceRenewal());
        assertNull(holders.get(1).lease());
    }
}
