package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import io.github.mongolock.mongo.IdleLockCleaner;
import io.github.mongolock.mongo.MongoLockStore;
import io.github.mongolock.testing.ArmedFault;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.ReplicaSetFaults;
import io.github.mongolock.testing.ReplicaSnapshot;
import io.github.mongolock.testing.StaleWindow;
import io.github.mongolock.testing.TestMongo;
import io.github.mongolock.testing.WireCommand;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 31's two defects through the public API, with the managers' requests going through the replica-set fault
 * layer ({@link ReplicaSetFaults}, on the wire, as the torture scenario {@code STALE_READS} does from other JVMs):
 * an election between a waiter's read of a lock and its read of the holder's session, whose snapshot lacks that
 * session; and a lock document removed by the idle clean-up and created again while majority reads come from a
 * snapshot taken before the clean-up raised the token floor. Both failed on 13c7186 (the waiter took the live
 * holder's lock; the name created again got a token below the last one handed out before its removal).
 */
@ExtendWith(MongoBackend.class)
class ElectionStaleReadsTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration WINDOW = Duration.ofSeconds(30);

    private final TestMongo mongo;
    private ReplicaSetFaults faults;
    private MongoClient throughTheLayer;
    private String database;

    ElectionStaleReadsTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void start() {
        faults = ReplicaSetFaults.start(mongo.uri());
        throughTheLayer = MongoClients.create(faults.uri());
        database = mongo.freshDatabase();
    }

    @AfterEach
    void stop() {
        throughTheLayer.close();
        faults.close();
        assertEquals(List.of(), faults.problems(), "problems inside the layer");
    }

    @Test
    void aWaiterWhoseSessionReadFollowsAnElectionDoesNotTakeALiveHoldersLock() {
        ReplicaSnapshot beforeTheHolder = faults.snapshot(database, "locks");
        try (MongoLockManager holder = MongoLockManager.builder().client(mongo.client()).database(database)
                .instanceId("holder").leaseTime(LEASE).build();
             MongoLockManager waiter = MongoLockManager.builder().client(throughTheLayer).database(database)
                     .instanceId("waiter").leaseTime(LEASE).build()) {
            try (LockSession held = holder.acquire("payments")) {
                // The election falls right before the waiter's read of a session the snapshot lacks: its read of the
                // lock just before was answered by the old primary, fresh.
                ArmedFault election = faults.armElection(command -> readsASessionMissingFrom(beforeTheHolder, command),
                        StaleWindow.majorityReads(beforeTheHolder, WINDOW));
                Optional<LockSession> taken = waiter.tryAcquire("payments", LockOptions.defaults().waitTime(Duration.ofSeconds(1)));
                taken.ifPresent(LockSession::close);
                assertAll(
                        () -> assertTrue(election.happened(), "no read of the holder's session came"),
                        () -> assertTrue(faults.figures().staleReadsEmpty() >= 1, "the session read found it: " + faults.figures()),
                        () -> assertTrue(taken.isEmpty(), "the waiter took a lock whose holder's session is live (holder"
                                + " isHeld() = " + held.isHeld() + ")"),
                        () -> assertTrue(held.isHeld(), "the holder still holds it"));
            }
            faults.elect(StaleWindow.NONE);
            try (LockSession next = waiter.acquire("payments", Duration.ofSeconds(5))) {
                assertTrue(next.isHeld(), "released by its holder, the lock goes to the waiter");
            }
        }
    }

    @Test
    void aNameCreatedAgainWhileReadsAreStaleGetsATokenAboveTheFloor() throws InterruptedException {
        MongoCollection<Document> locks = mongo.collection(database, "locks");
        try (MongoLockManager manager = MongoLockManager.builder().client(throughTheLayer).database(database)
                .instanceId("creator").leaseTime(LEASE).build()) {
            for (int i = 0; i < 5; i++) {
                manager.acquire("report").close();
            }
            long last = ((Number) locks.find(new Document("_id", "report")).first().get("token")).longValue();
            assertTrue(last >= 5, "five grants, token " + last);
            ReplicaSnapshot beforeTheCleanUp = faults.snapshot(database, "locks");
            removeIdle(locks); // the floor raised to the last token, then the document removed

            faults.elect(StaleWindow.majorityReads(beforeTheCleanUp, WINDOW));
            long token;
            try (LockSession again = manager.acquire("report")) {
                token = again.fencingToken();
            }
            long staleReads = faults.figures().staleReads();
            assertTrue(token > last, "the name created again got token " + token + " after token " + last + " ("
                    + staleReads + " reads answered from the snapshot)");
        }
    }

    private static boolean readsASessionMissingFrom(ReplicaSnapshot snapshot, WireCommand command) {
        BsonValue id = command.targetId();
        return command.isRead() && command.readConcern().equals("majority") && id != null && id.isDocument()
                && new BsonString("session").equals(id.asDocument().get("mongolock")) && !snapshot.contains("locks", id);
    }

    /** The production clean-up, directly on the backend, until it removed the free document (its freedAt is in the past). */
    private static void removeIdle(MongoCollection<Document> locks) throws InterruptedException {
        IdleLockCleaner cleaner = new IdleLockCleaner(new MongoLockStore(locks));
        long removed = 0;
        for (int tries = 0; tries < 50 && removed == 0; tries++) {
            TimeUnit.MILLISECONDS.sleep(20);
            removed = cleaner.removeIdle(Duration.ZERO, 10).removed();
        }
        assertEquals(1, removed, "the free lock document was not removed");
    }
}
