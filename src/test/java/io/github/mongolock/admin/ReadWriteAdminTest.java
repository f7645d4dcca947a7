package io.github.mongolock.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.ForceReleaseRefusedException;
import io.github.mongolock.LockLostException;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.ReadWriteHold;
import io.github.mongolock.mongo.ForcedReadWriteRelease;
import io.github.mongolock.mongo.LockAdmin;
import io.github.mongolock.mongo.ReadWriteAdmin;
import io.github.mongolock.mongo.ReadWriteState;
import io.github.mongolock.testing.Await;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** An operator lists and inspects read-write locks with each holder's mode, and takes back one holder's access. */
@ExtendWith(MongoBackend.class)
class ReadWriteAdminTest {

    private static final Duration LEASE = Duration.ofSeconds(1);

    private final TestMongo mongo;
    private final List<MongoLockManager> managers = new ArrayList<>();
    /** The operator's command against this test's database. */
    private AdminCommandRunner command;
    private String database;
    private LockAdmin admin;
    private ReadWriteAdmin rw;

    ReadWriteAdminTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void freshDatabase() {
        database = mongo.freshDatabase();
        command = new AdminCommandRunner(mongo.uri(), database);
        admin = new LockAdmin(mongo.client().getDatabase(database), MongoLockManager.DEFAULT_COLLECTION,
                Duration.ofSeconds(5), "alice@ops-1");
        rw = admin.readWriteLocks();
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
    void listAndInspectShowEachHolderWithItsMode() {
        MongoLockManager node1 = manager("node-1", MongoLockManager.DEFAULT_LEASE_TIME);
        MongoLockManager node2 = manager("node-2", MongoLockManager.DEFAULT_LEASE_TIME);
        ReadWriteHold reader1 = node1.readWriteLock("catalog").read();
        ReadWriteHold reader2 = node2.readWriteLock("catalog").read();
        ReadWriteHold writer = node1.readWriteLock("prices").write();
        node1.permits("catalog", 2).acquire().close(); // a semaphore of the same name is another thing
        node1.acquire("catalog").close();

        List<ReadWriteState> listed = rw.list("", 10);
        assertEquals(List.of("catalog", "prices"), listed.stream().map(ReadWriteState::name).toList());
        ReadWriteState catalog = listed.get(0);
        assertEquals(ReadWriteHold.Mode.READ, catalog.heldAs());
        assertEquals(2, catalog.readers());
        assertEquals(List.of(reader1.owner(), reader2.owner()), catalog.holders().stream().map(ReadWriteState.Holder::owner).toList());
        assertEquals(List.of("node-1", "node-2"), catalog.holders().stream().map(ReadWriteState.Holder::instanceId).toList());
        assertEquals("live", catalog.holders().get(0).sessionState());
        assertEquals(reader2.fencingToken(), catalog.fencingToken());
        ReadWriteState prices = listed.get(1);
        assertEquals(ReadWriteHold.Mode.WRITE, prices.heldAs());
        assertEquals(ReadWriteHold.Mode.WRITE, prices.holders().get(0).mode());
        assertEquals(writer.owner(), prices.holders().get(0).owner());
        assertEquals(List.of(), admin.list("", 10), "no read-write lock among the locks");
        assertEquals(List.of(), admin.listPermits("", 10), "nor among the semaphores");
        assertEquals(List.of("prices"), rw.list("pri", 10).stream().map(ReadWriteState::name).toList());

        assertEquals(0, command.run("list"), command.err());
        assertTrue(command.out().contains("READ-WRITE LOCK") && command.out().contains("2 read-write locks held or with a writer waiting"), command.out());
        assertTrue(command.out().contains(writer.owner()) && command.out().contains("WRITE") && command.out().contains(reader2.owner()), command.out());
        assertEquals(0, command.run("inspect-rw", "catalog"), command.err());
        assertTrue(command.out().contains("held as: READ") && command.out().contains("readers: 2")
                && command.out().contains("holder: " + reader1.owner() + " mode: READ"), command.out());
        assertEquals(1, command.run("inspect-rw", "never-used"));
        assertTrue(command.err().contains("no read-write lock named \"never-used\""), command.err());

        reader1.close();
        reader2.close();
        writer.close();
        assertEquals(List.of(), rw.list("", 10), "read-write locks nobody holds are not listed");
        ReadWriteState free = rw.inspect("catalog").orElseThrow();
        assertNull(free.heldAs());
        assertNull(free.lastRevocation());
        assertTrue(rw.inspect("never-used").isEmpty());
    }

    @Test
    void aForcedReleaseOfAWriterFreesTheLockAndTheWriterLearnsItAtItsNextRenewal() throws InterruptedException {
        MongoLockManager wedged = manager("node-1", LEASE);
        MongoLockManager next = manager("node-2", LEASE);
        next.readWriteLock("catalog").write().close(); // the stand-in's first calls are slow
        ReadWriteHold old = wedged.readWriteLock("catalog").write();
        AtomicBoolean told = new AtomicBoolean();
        old.onLeaseLost(() -> told.set(true));
        long before = rw.inspect("catalog").orElseThrow().version();

        assertEquals(0, command.run("release-rw", "catalog", "--owner", old.owner(), "--reason", "reload wedged, OPS-4712"), command.err());
        assertTrue(command.out().contains("released write access to read-write lock \"catalog\" from " + old.owner()
                + " by ") && command.out().contains("reload wedged, OPS-4712"), command.out());
        ReadWriteState after = rw.inspect("catalog").orElseThrow();
        assertEquals(before + 1, after.version());
        assertNull(after.heldAs());
        assertEquals(old.owner(), after.lastRevocation().owner());
        assertEquals("reload wedged, OPS-4712", after.lastRevocation().reason());
        try (ReadWriteHold read = next.readWriteLock("catalog").tryRead().orElseThrow()) {
            assertTrue(read.fencingToken() > old.fencingToken());
        }
        Await.await(told::get, "the old writer is told");
        assertFalse(old.isHeld());
        LockLostException lost = assertThrows(LockLostException.class, old::close);
        assertTrue(lost.getMessage().contains("an operator released"), lost.getMessage());
    }

    @Test
    void aForcedReleaseTakesBackOneReaderAndIsRefusedForAnUnknownHolder() throws InterruptedException {
        MongoLockManager node1 = manager("node-1", MongoLockManager.DEFAULT_LEASE_TIME);
        MongoLockManager node2 = manager("node-2", MongoLockManager.DEFAULT_LEASE_TIME);
        ReadWriteHold kept = node1.readWriteLock("catalog").read();
        ReadWriteHold taken = node2.readWriteLock("catalog").read();

        ForceReleaseRefusedException noSuchName = assertThrows(ForceReleaseRefusedException.class,
                () -> rw.forceRelease("catalogue", taken.owner(), "wedged"));
        assertTrue(noSuchName.getMessage().contains("there is no read-write lock named \"catalogue\"")
                && noSuchName.getMessage().contains("\"catalog\""), noSuchName.getMessage());
        assertEquals(1, command.run("release-rw", "catalog", "--owner", "node-9:0:rw1", "--reason", "wedged"));
        assertTrue(command.err().contains("node-9:0:rw1 holds none") && command.err().contains("Nothing was changed"), command.err());
        assertEquals(2, command.run("release-rw", "catalog", "--reason", "wedged"));
        assertTrue(command.err().contains("--owner is missing"), command.err());

        ForcedReadWriteRelease done = rw.forceRelease("catalog", taken.owner(), "reader wedged");
        assertEquals(ReadWriteHold.Mode.READ, done.holder().mode());
        assertEquals(taken.owner(), done.holder().owner());
        assertTrue(done.sessionTold());
        ReadWriteState after = rw.inspect("catalog").orElseThrow();
        assertEquals(List.of(kept.owner()), after.holders().stream().map(ReadWriteState.Holder::owner).toList());
        Await.await(() -> !taken.isHeld(), "the reader is told");
        assertTrue(kept.isHeld(), "the other reader keeps its access");
        kept.close();
    }
}
