package io.github.mongolock.testing;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.set;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoSocketException;
import com.mongodb.ReadConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Aggregates;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The replica-set fault layer's own behaviours, each seen happening on whatever backend runs the tests (the
 * stand-in here): stale and missing reads after an election, writes applied to the current data meanwhile, a
 * lost answer of an applied write, an {@code updateMany} replayed, and the rollback of a write whose answer was
 * lost (never of one answered). The client under test goes through the layer with retries off, so that a lost
 * answer reaches it; the test checks the data with its own client, directly.
 */
@ExtendWith(MongoBackend.class)
class ReplicaSetFaultsTest {

    private static final Duration WINDOW = Duration.ofSeconds(30);

    private final TestMongo mongo;
    private ReplicaSetFaults faults;
    private MongoClient client;
    private String database;
    /** Through the layer, majority reads (the store's concern). */
    private MongoCollection<Document> majority;
    /** Through the layer, the server's default read concern (local). */
    private MongoCollection<Document> local;
    /** The backend itself. */
    private MongoCollection<Document> direct;

    ReplicaSetFaultsTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void start() {
        faults = ReplicaSetFaults.start(mongo.uri());
        client = MongoClients.create(MongoClientSettings.builder().applyConnectionString(new ConnectionString(faults.uri()))
                .retryWrites(false).retryReads(false)
                .applyToSocketSettings(socket -> socket.readTimeout(10, TimeUnit.SECONDS))
                .build());
        database = mongo.freshDatabase();
        local = client.getDatabase(database).getCollection("docs");
        majority = local.withReadConcern(ReadConcern.MAJORITY);
        direct = mongo.collection(database, "docs");
    }

    @AfterEach
    void stop() {
        client.close();
        faults.close();
        assertEquals(List.of(), faults.problems(), "problems inside the layer");
    }

    @Test
    void aDocumentInsertedAfterTheSnapshotReadsAsNotFoundDuringTheWindowAndAsFoundAfterIt() throws InterruptedException {
        majority.insertOne(new Document("_id", "old").append("v", 1));
        ReplicaSnapshot snapshot = faults.snapshot(database, "docs");
        majority.insertOne(new Document("_id", "new").append("v", 1));
        majority.updateOne(eq("_id", "old"), set("v", 2));

        Duration window = Duration.ofMillis(1500);
        faults.elect(StaleWindow.majorityReads(snapshot, window));
        long opened = System.nanoTime();
        Document newDuring = majority.find(eq("_id", "new")).first();
        Document oldDuring = majority.find(eq("_id", "old")).first();
        Document aggregatedDuring = majority.aggregate(List.of(Aggregates.match(eq("_id", "new")))).first();
        long countDuring = majority.countDocuments();
        assertTrue(System.nanoTime() - opened < window.toNanos(), "the reads took longer than the window; nothing is shown");
        assertAll("during the window",
                () -> assertNull(newDuring, "inserted after the snapshot: not found"),
                () -> assertNull(aggregatedDuring, "not found by an aggregation either"),
                () -> assertEquals(1, oldDuring.getInteger("v"), "changed after the snapshot: its version at the snapshot"),
                () -> assertEquals(1, countDuring, "counted as at the snapshot"),
                () -> assertNotNull(direct.find(eq("_id", "new")).first(), "the document itself is there"));

        while (faults.staleWindowOpen()) {
            TimeUnit.MILLISECONDS.sleep(20);
        }
        assertAll("after the window",
                () -> assertNotNull(majority.find(eq("_id", "new")).first(), "found again"),
                () -> assertEquals(2, majority.find(eq("_id", "old")).first().getInteger("v"), "its current version again"),
                () -> assertEquals(4, faults.figures().staleReads(), "four reads were answered from the snapshot"),
                () -> assertEquals(2, faults.figures().staleReadsEmpty(), "two of them found nothing"));
    }

    @Test
    void writesDuringTheWindowApplyToTheCurrentDataAndLocalReadsSeeThem() {
        majority.insertOne(new Document("_id", "a").append("n", 0));
        ReplicaSnapshot snapshot = faults.snapshot(database, "docs");
        majority.updateOne(eq("_id", "a"), inc("n", 1));

        faults.elect(StaleWindow.majorityReads(snapshot, WINDOW));
        long matched = majority.updateOne(eq("_id", "a"), inc("n", 10)).getMatchedCount();
        assertAll(
                () -> assertEquals(1, matched, "the write found the current document"),
                () -> assertEquals(11, direct.find(eq("_id", "a")).first().getInteger("n"), "and changed it"),
                () -> assertEquals(0, majority.find(eq("_id", "a")).first().getInteger("n"), "a majority read: as at the snapshot"),
                () -> assertEquals(11, local.find(eq("_id", "a")).first().getInteger("n"), "a local read: the primary's latest data"));
    }

    @Test
    void aDeposedPrimaryAnswersEveryReadFromItsOldData() {
        ReplicaSnapshot snapshot = faults.snapshot(database, "docs");
        local.insertOne(new Document("_id", "late"));

        faults.elect(StaleWindow.allReads(snapshot, WINDOW));
        assertNull(local.find(eq("_id", "late")).first(), "a local read is stale too");
        assertNotNull(direct.find(eq("_id", "late")).first());
    }

    @Test
    void anElectionArmedForTheSecondReadStartsJustBeforeIt() throws InterruptedException {
        ReplicaSnapshot snapshot = faults.snapshot(database, "docs");
        majority.insertOne(new Document("_id", "x"));
        ArmedFault election = faults.armElection(ReplicaSetFaults.nth(2, WireCommand::isRead),
                StaleWindow.majorityReads(snapshot, WINDOW));

        Document first = majority.find(eq("_id", "x")).first();
        assertFalse(election.happened(), "no election before the second read");
        Document second = majority.find(eq("_id", "x")).first();
        assertAll(
                () -> assertNotNull(first, "the first read, before the election: found"),
                () -> assertTrue(election.awaitHit(Duration.ofSeconds(1)), "the election happened"),
                () -> assertNull(second, "the second read, the first after it: not found"),
                () -> assertEquals(new BsonString("x"), election.command().orElseThrow().targetId(), "it hit that read"),
                () -> assertEquals(1, faults.figures().elections()));
    }

    @Test
    void aLostReplyFailsTheCallWhileTheWriteIsApplied() {
        majority.insertOne(new Document("_id", "c").append("n", 0));
        ArmedFault lose = faults.loseReply(command -> command.name().equals("update") && command.on(database, "docs"));

        assertThrows(MongoSocketException.class, () -> majority.updateOne(eq("_id", "c"), inc("n", 1)));
        assertAll(
                () -> assertTrue(lose.happened()),
                () -> assertEquals(1, direct.find(eq("_id", "c")).first().getInteger("n"), "applied all the same"),
                () -> assertEquals(1, faults.figures().lostReplies()));
        assertEquals(1, majority.updateOne(eq("_id", "c"), inc("n", 1)).getMatchedCount(), "the next call is answered");
        assertEquals(2, direct.find(eq("_id", "c")).first().getInteger("n"));
    }

    @Test
    void aReplayedUpdateManyIsAppliedTwice() {
        majority.insertMany(List.of(new Document("_id", 1).append("n", 0), new Document("_id", 2).append("n", 0)));
        ArmedFault replay = faults.replay(command -> command.multi() && command.on(database, "docs"));

        long modified = majority.updateMany(new Document(), inc("n", 1)).getModifiedCount();
        assertAll(
                () -> assertTrue(replay.happened()),
                () -> assertEquals(2, modified, "the caller sees one update of two documents"),
                () -> assertEquals(2, direct.find(eq("_id", 1)).first().getInteger("n"), "$inc counted twice"),
                () -> assertEquals(2, direct.find(eq("_id", 2)).first().getInteger("n"), "$inc counted twice"),
                () -> assertEquals(1, faults.figures().replays()));
    }

    @Test
    void aWriteWhoseReplyWasLostIsRolledBackAtTheNextElection() {
        majority.insertOne(new Document("_id", "kept").append("v", 1));
        faults.loseReply(command -> command.name().equals("update") && command.on(database, "docs"));
        assertThrows(MongoSocketException.class, () -> majority.updateOne(eq("_id", "kept"), set("v", 2)));
        faults.loseReply(command -> command.name().equals("insert") && command.on(database, "docs"));
        assertThrows(MongoSocketException.class, () -> majority.insertOne(new Document("_id", "inserted")));
        assertEquals(2, direct.find(eq("_id", "kept")).first().getInteger("v"), "both applied");
        assertNotNull(direct.find(eq("_id", "inserted")).first(), "both applied");

        faults.elect(StaleWindow.NONE);
        assertAll(
                () -> assertEquals(1, direct.find(eq("_id", "kept")).first().getInteger("v"), "the update undone"),
                () -> assertNull(direct.find(eq("_id", "inserted")).first(), "the insert undone"),
                () -> assertEquals(2, faults.figures().rolledBackWrites()),
                () -> assertEquals(0, faults.figures().keptWrites()));
    }

    @Test
    void aLostWriteFollowedByAnAnsweredWriteIsKept() {
        majority.insertOne(new Document("_id", "d").append("v", 1));
        majority.insertOne(new Document("_id", "other").append("v", 1));
        faults.loseReply(command -> command.name().equals("update") && command.on(database, "docs"));
        assertThrows(MongoSocketException.class, () -> majority.updateOne(eq("_id", "d"), set("v", 2)));
        // Answered after it: majority-committed, and so is every write before it in the oplog, the lost one included.
        majority.updateOne(eq("_id", "other"), set("v", 5));

        faults.elect(StaleWindow.NONE);
        assertAll(
                () -> assertEquals(2, direct.find(eq("_id", "d")).first().getInteger("v"), "the lost write stays"),
                () -> assertEquals(5, direct.find(eq("_id", "other")).first().getInteger("v"), "the answered write stays"),
                () -> assertEquals(0, faults.figures().rolledBackWrites()),
                () -> assertEquals(1, faults.figures().keptWrites()));
    }

    @Test
    void aLostWriteThatChangedNothingHasNothingToRollBack() {
        majority.insertOne(new Document("_id", "e").append("v", 1));
        faults.loseReply(command -> command.name().equals("update") && command.on(database, "docs"));
        assertThrows(MongoSocketException.class, () -> majority.updateOne(eq("_id", "absent"), set("v", 2)));

        faults.elect(StaleWindow.NONE);
        assertAll(
                () -> assertEquals(1, direct.find(eq("_id", "e")).first().getInteger("v")),
                () -> assertEquals(0, faults.figures().rolledBackWrites()),
                () -> assertEquals(0, faults.figures().keptWrites()),
                () -> assertEquals(1, faults.figures().unchangedWrites()));
    }

    @Test
    void aLostWriteFollowedByAnElectionIsGoneBeforeTheCallerHearsOfIt() {
        ArmedFault lose = faults.loseReplyThenElect(command -> command.name().equals("insert") && command.on(database, "docs"));
        assertThrows(MongoSocketException.class, () -> majority.insertOne(new Document("_id", "gone")));
        assertAll(
                () -> assertTrue(lose.happened()),
                () -> assertNull(direct.find(eq("_id", "gone")).first(), "rolled back"),
                () -> assertEquals(1, faults.figures().elections()),
                () -> assertEquals(1, faults.figures().rolledBackWrites()));
    }

    @Test
    void theRetryOfARolledBackRetryableWriteRunsAgain() {
        majority.insertOne(new Document("_id", "t").append("n", 0));
        MongoDatabase db = client.getDatabase(database);
        // A retryable write as a driver sends one to a replica set: its session and transaction number (the stand-in
        // has no sessions, so the driver adds neither; it ignores both).
        Document increment = new Document("update", "docs").append("updates",
                List.of(new Document("q", new Document("_id", "t")).append("u", new Document("$inc", new Document("n", 1)))))
                .append("lsid", new BsonDocument("id", new BsonBinary(UUID.randomUUID()))).append("txnNumber", 7L);
        faults.loseReplyThenElect(command -> command.name().equals("update") && command.retryable());
        assertThrows(MongoSocketException.class, () -> db.runCommand(increment));
        assertEquals(0, direct.find(eq("_id", "t")).first().getInteger("n"), "rolled back");
        db.runCommand(increment); // the retry: same session, same transaction number
        assertAll(
                () -> assertEquals(1, direct.find(eq("_id", "t")).first().getInteger("n"), "the retry applied once"),
                () -> assertEquals(1, faults.figures().retriesRunAgain(), "sent as a plain write"));
    }

    @Test
    void aStaleWindowNeverShowsAWriteTheElectionRolledBack() {
        majority.insertOne(new Document("_id", "r").append("v", 1));
        faults.loseReply(command -> command.name().equals("update") && command.on(database, "docs"));
        assertThrows(MongoSocketException.class, () -> majority.updateOne(eq("_id", "r"), set("v", 2)));
        ReplicaSnapshot snapshot = faults.snapshot(database, "docs"); // taken with the lost write in it

        faults.elect(StaleWindow.majorityReads(snapshot, WINDOW));
        assertAll(
                () -> assertEquals(1, majority.find(eq("_id", "r")).first().getInteger("v"), "the stale read: its pre-image"),
                () -> assertEquals(1, direct.find(eq("_id", "r")).first().getInteger("v"), "the current data: its pre-image"),
                () -> assertEquals(1, snapshot.document("docs", new BsonString("r")).orElseThrow().getInt32("v").getValue()));
    }
}
