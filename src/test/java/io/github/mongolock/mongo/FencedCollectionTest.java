package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.max;
import static com.mongodb.client.model.Updates.rename;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.setOnInsert;
import static com.mongodb.client.model.Updates.unset;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoServerException;
import com.mongodb.MongoWriteException;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.result.UpdateResult;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import io.github.mongolock.FencedWriteRejectedException;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockSession;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.Decimal128;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every operation of {@link FencedCollection} and each of its outcomes, against the test backend. */
@ExtendWith(MongoBackend.class)
class FencedCollectionTest {

    private static final String FENCE = FencedCollection.DEFAULT_FENCE_FIELD;

    private final TestMongo mongo;
    private String database;
    private MongoCollection<Document> accounts;
    private FencedCollection<Document> fenced;

    FencedCollectionTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void freshCollection() {
        database = mongo.freshDatabase();
        accounts = mongo.collection(database, "accounts");
        fenced = FencedCollection.of(accounts);
        accounts.insertOne(new Document("_id", "acct-1").append("balance", 100L));
    }

    private Document stored(String id) {
        return accounts.find(eq("_id", id)).first();
    }

    @Test
    void aFirstWriteSetsTheFenceAndEqualOrHigherTokensWriteAgain() {
        UpdateResult first = fenced.updateOne(5, eq("_id", "acct-1"), inc("balance", 10L));
        assertEquals(1, first.getMatchedCount());
        assertEquals(new Document("_id", "acct-1").append("balance", 110L).append(FENCE, 5L), stored("acct-1"));

        // The same holder again (a re-entrant hold keeps its token): accepted.
        assertEquals(1, fenced.updateOne(5, eq("_id", "acct-1"), inc("balance", 10L)).getModifiedCount());
        fenced.updateOne(9, eq("_id", "acct-1"), inc("balance", 10L));
        assertEquals(new Document("_id", "acct-1").append("balance", 130L).append(FENCE, 9L), stored("acct-1"));
    }

    @Test
    void aLowerTokenIsRefusedAndNothingIsWritten() {
        fenced.updateOne(9, eq("_id", "acct-1"), set("balance", 70L));
        FencedWriteRejectedException refused = assertThrows(FencedWriteRejectedException.class,
                () -> fenced.updateOne(8, eq("_id", "acct-1"), set("balance", 50L)));
        assertEquals(8, refused.fencingToken());
        assertEquals(9, refused.fenceSeen());
        assertEquals(database + ".accounts", refused.namespace());
        assertEquals("{\"_id\": \"acct-1\"}", refused.document());
        assertNull(refused.lockName(), "a bare token names no lock");
        assertInstanceOf(LockLostException.class, refused);
        assertEquals("Write to " + database + ".accounts refused: document {\"_id\": \"acct-1\"} carries fencing token 9"
                + " in \"fencingToken\", higher than this write's token 8. A later holder of the lock has read or written"
                + " it, so this holder's lease was lost; nothing was written. Stop the work done under this lock; if it"
                + " must still happen, acquire the lock again and redo it from a fresh read.", refused.getMessage());
        assertEquals(new Document("_id", "acct-1").append("balance", 70L).append(FENCE, 9L), stored("acct-1"));
    }

    @Test
    void sessionsGiveTheirTokenAndARefusalNamesTheLock() {
        try (MongoLockManager locks = MongoLockManager.builder().client(mongo.client()).database(database).build()) {
            LockSession earlier = locks.acquire("account-acct-1");
            earlier.close();
            try (LockSession later = locks.acquire("account-acct-1")) {
                assertTrue(later.fencingToken() > earlier.fencingToken());
                fenced.updateOne(later, eq("_id", "acct-1"), set("balance", 90L));
                assertEquals(later.fencingToken(), stored("acct-1").getLong(FENCE));

                FencedWriteRejectedException refused = assertThrows(FencedWriteRejectedException.class,
                        () -> fenced.updateOne(earlier, eq("_id", "acct-1"), set("balance", 1L)));
                assertEquals("account-acct-1", refused.lockName());
                assertEquals(earlier.fencingToken(), refused.fencingToken());
                assertEquals(later.fencingToken(), refused.fenceSeen());
                assertTrue(refused.getMessage().contains("(lock \"account-acct-1\")"), refused.getMessage());
                assertThrows(FencedWriteRejectedException.class,
                        () -> fenced.findOneAndUpdate(earlier, eq("_id", "acct-1"), new Document()));
                assertThrows(FencedWriteRejectedException.class,
                        () -> fenced.replaceOne(earlier, eq("_id", "acct-1"), new Document("balance", 1L)));
                assertEquals(90L, stored("acct-1").getLong("balance"));
            }
        }
    }

    @Test
    void aFilterThatMatchesNothingIsNotARefusal() {
        fenced.updateOne(9, eq("_id", "acct-1"), set("balance", 70L));
        UpdateResult missing = fenced.updateOne(3, eq("_id", "acct-2"), set("balance", 1L));
        assertEquals(0, missing.getMatchedCount());
        assertNull(missing.getUpsertedId());
        // The document exists and its fence is higher, but the caller's own condition does not hold: no match.
        assertEquals(0, fenced.updateOne(3, new Document("_id", "acct-1").append("balance", 0L), set("balance", 1L))
                .getMatchedCount());
        assertNull(fenced.findOneAndUpdate(3, eq("_id", "acct-2"), new Document()));
        assertEquals(0, fenced.replaceOne(3, eq("_id", "acct-2"), new Document("balance", 1L)).getMatchedCount());
        assertNull(stored("acct-2"));
    }

    @Test
    void theFencedReadRegistersTheTokenSoAnOlderHolderCannotWriteBeforeTheNewOnesFirstWrite() {
        Document read = fenced.findOneAndUpdate(7, eq("_id", "acct-1"), new Document());
        assertEquals(new Document("_id", "acct-1").append("balance", 100L), read, "the document as it was before");
        assertEquals(7L, stored("acct-1").getLong(FENCE));

        FencedWriteRejectedException refused = assertThrows(FencedWriteRejectedException.class,
                () -> fenced.updateOne(6, eq("_id", "acct-1"), set("balance", 0L)));
        assertEquals(7, refused.fenceSeen());
        fenced.updateOne(7, eq("_id", "acct-1"), set("balance", read.getLong("balance") - 30));
        assertEquals(new Document("_id", "acct-1").append("balance", 70L).append(FENCE, 7L), stored("acct-1"));
    }

    @Test
    void findOneAndUpdateAppliesTheUpdateAndHonoursTheOptions() {
        Document after = fenced.findOneAndUpdate(4, eq("_id", "acct-1"), combine(inc("balance", 5L), max("highest", 3L)),
                new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER));
        assertEquals(new Document("_id", "acct-1").append("balance", 105L).append("highest", 3L).append(FENCE, 4L), after,
                "the caller's own $max is kept beside the fence's");
        FencedWriteRejectedException refused = assertThrows(FencedWriteRejectedException.class,
                () -> fenced.findOneAndUpdate(3, eq("_id", "acct-1"), inc("balance", 5L)));
        assertEquals(4, refused.fenceSeen());
        assertEquals(105L, stored("acct-1").getLong("balance"));
    }

    @Test
    void upsertsInsertWithTheFenceAndARefusedUpsertIsARejectionNotADuplicateKey() {
        UpdateOptions upsert = new UpdateOptions().upsert(true);
        UpdateResult inserted = fenced.updateOne(5, eq("_id", "acct-2"), set("balance", 10L), upsert);
        assertEquals(new BsonString("acct-2"), inserted.getUpsertedId());
        assertEquals(new Document("_id", "acct-2").append("balance", 10L).append(FENCE, 5L), stored("acct-2"));

        FencedWriteRejectedException refused = assertThrows(FencedWriteRejectedException.class,
                () -> fenced.updateOne(4, eq("_id", "acct-2"), set("balance", 0L), upsert));
        assertEquals(5, refused.fenceSeen());
        MongoServerException duplicateKey = assertInstanceOf(MongoServerException.class, refused.getCause());
        assertEquals(11000, duplicateKey.getCode());

        FindOneAndUpdateOptions upsertBefore = new FindOneAndUpdateOptions().upsert(true);
        assertNull(fenced.findOneAndUpdate(5, eq("_id", "acct-3"), setOnInsert("balance", 0L), upsertBefore),
                "inserted: there was no document before");
        assertEquals(new Document("_id", "acct-3").append("balance", 0L).append(FENCE, 5L), stored("acct-3"));
        assertThrows(FencedWriteRejectedException.class,
                () -> fenced.findOneAndUpdate(2, eq("_id", "acct-3"), set("balance", 9L), upsertBefore));

        ReplaceOptions replaceUpsert = new ReplaceOptions().upsert(true);
        assertEquals(new BsonString("acct-4"),
                fenced.replaceOne(6, eq("_id", "acct-4"), new Document("balance", 1L), replaceUpsert).getUpsertedId());
        assertEquals(new Document("_id", "acct-4").append("balance", 1L).append(FENCE, 6L), stored("acct-4"));
        assertThrows(FencedWriteRejectedException.class,
                () -> fenced.replaceOne(5, eq("_id", "acct-4"), new Document("balance", 0L), replaceUpsert));

        // An upsert that finds its document with a lower fence updates it.
        fenced.updateOne(8, eq("_id", "acct-2"), set("balance", 11L), upsert);
        assertEquals(new Document("_id", "acct-2").append("balance", 11L).append(FENCE, 8L), stored("acct-2"));
        assertEquals(0L, stored("acct-3").getLong("balance"), "the refused upsert changed nothing");
        assertEquals(1L, stored("acct-4").getLong("balance"), "the refused upsert changed nothing");
    }

    @Test
    void aDuplicateKeyOnAnotherUniqueIndexStaysTheDriversError() {
        MongoCollection<Document> users = mongo.collection(database, "users");
        users.createIndex(new Document("email", 1), new IndexOptions().unique(true));
        users.insertOne(new Document("_id", "u1").append("email", "a@example.com"));
        FencedCollection<Document> fencedUsers = FencedCollection.of(users);
        MongoWriteException duplicate = assertThrows(MongoWriteException.class, () -> fencedUsers.updateOne(3,
                eq("_id", "u2"), set("email", "a@example.com"), new UpdateOptions().upsert(true)));
        assertEquals(11000, duplicate.getCode());
    }

    @Test
    void aReplacementKeepsTheFence() {
        UpdateResult replaced = fenced.replaceOne(6, eq("_id", "acct-1"),
                new Document("_id", "acct-1").append("balance", 60L).append(FENCE, 2L));
        assertEquals(1, replaced.getModifiedCount());
        assertEquals(new Document("_id", "acct-1").append("balance", 60L).append(FENCE, 6L), stored("acct-1"),
                "the replacement's own fence value is the token's");
        fenced.replaceOne(6, eq("_id", "acct-1"), new Document("owner", "Ada"));
        assertEquals(new Document("_id", "acct-1").append("owner", "Ada").append(FENCE, 6L), stored("acct-1"));

        FencedWriteRejectedException refused = assertThrows(FencedWriteRejectedException.class,
                () -> fenced.replaceOne(5, eq("_id", "acct-1"), new Document("owner", "Eve")));
        assertEquals(6, refused.fenceSeen());
        assertEquals("Ada", stored("acct-1").getString("owner"));
    }

    @Test
    void worksWithAnyDocumentClassAndAFenceFieldOfItsOwn() {
        MongoCollection<BsonDocument> raw = mongo.client().getDatabase(database).getCollection("raw", BsonDocument.class);
        FencedCollection<BsonDocument> fencedRaw = FencedCollection.of(raw, "fence");
        assertEquals("fence", fencedRaw.fenceField());
        fencedRaw.replaceOne(3, eq("_id", "r"), new BsonDocument("v", new BsonInt64(1)), new ReplaceOptions().upsert(true));
        assertEquals(new BsonDocument("_id", new BsonString("r")).append("v", new BsonInt64(1)).append("fence", new BsonInt64(3)),
                raw.find().first());
        BsonDocument before = fencedRaw.findOneAndUpdate(4, eq("_id", "r"), inc("v", 1L));
        assertEquals(new BsonInt64(3), before.get("fence"));
        assertThrows(FencedWriteRejectedException.class, () -> fencedRaw.updateOne(3, eq("_id", "r"), inc("v", 1L)));
        assertEquals("fencingToken", fenced.fenceField());
        assertEquals("other", fenced.withFenceField("other").fenceField());
    }

    @Test
    void aNullFenceCountsAsNeverFencedAndAShellWrittenDoubleIsAToken() {
        accounts.insertOne(new Document("_id", "nulled").append(FENCE, null));
        fenced.updateOne(2, eq("_id", "nulled"), set("balance", 1L));
        assertEquals(2L, stored("nulled").getLong(FENCE));

        accounts.insertOne(new Document("_id", "shell").append(FENCE, 12.0));
        assertEquals(12, assertThrows(FencedWriteRejectedException.class,
                () -> fenced.updateOne(11, eq("_id", "shell"), set("balance", 1L))).fenceSeen());
        accounts.insertOne(new Document("_id", "decimal").append(FENCE, Decimal128.parse("12")));
        assertEquals(12, assertThrows(FencedWriteRejectedException.class,
                () -> fenced.updateOne(11, eq("_id", "decimal"), set("balance", 1L))).fenceSeen());
    }

    @Test
    void aFenceFieldHoldingSomethingElseIsReportedNotTakenForNoMatch() {
        accounts.insertOne(new Document("_id", "taken").append(FENCE, "gold"));
        LockConfigurationException clash = assertThrows(LockConfigurationException.class,
                () -> fenced.updateOne(3, eq("_id", "taken"), set("balance", 1L)));
        assertEquals("Document {\"_id\": \"taken\"} in " + database + ".accounts has {\"fencingToken\": \"gold\"}, which is"
                + " not a fencing token (a whole number), so no fenced write can pass it. Another writer uses that field:"
                + " give FencedCollection a field of its own with withFenceField(...).", clash.getMessage());
        accounts.insertOne(new Document("_id", "fraction").append(FENCE, 12.5));
        assertThrows(LockConfigurationException.class, () -> fenced.updateOne(3, eq("_id", "fraction"), set("balance", 1L)));
    }

    @Test
    void anAcceptedWriteIsOneCommandAndOnlyAWriteThatChangedNothingReadsOnce() {
        List<String> commands = new CopyOnWriteArrayList<>();
        CommandListener listener = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                commands.add(event.getCommandName());
            }
        };
        try (MongoClient client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(mongo.uri())).addCommandListener(listener).build())) {
            FencedCollection<Document> counted = FencedCollection.of(client.getDatabase(database).getCollection("accounts"));
            counted.updateOne(5, eq("_id", "acct-1"), inc("balance", 1L));
            counted.findOneAndUpdate(5, eq("_id", "acct-1"), inc("balance", 1L));
            counted.replaceOne(5, eq("_id", "acct-1"), new Document("balance", 1L));
            assertEquals(List.of("update", "findAndModify", "update"), commands, "accepted: one round trip each");
            commands.clear();
            assertThrows(FencedWriteRejectedException.class, () -> counted.updateOne(4, eq("_id", "acct-1"), inc("balance", 1L)));
            counted.updateOne(5, eq("_id", "nobody"), inc("balance", 1L));
            assertEquals(List.of("update", "find", "update", "find"), commands, "refused or no match: one read more");
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, Long.MIN_VALUE})
    void aTokenBelowOneIsRejectedNamingIt(long token) {
        for (Executable call : List.<Executable>of(
                () -> fenced.updateOne(token, eq("_id", "acct-1"), set("balance", 1L)),
                () -> fenced.findOneAndUpdate(token, eq("_id", "acct-1"), new Document()),
                () -> fenced.replaceOne(token, eq("_id", "acct-1"), new Document()))) {
            LockConfigurationException rejected = assertThrows(LockConfigurationException.class, call);
            assertEquals("Fencing token " + token + " is not a token: tokens start at 1 and grow with every fresh"
                    + " acquisition. Pass the fencingToken() of the LockSession that holds the lock.", rejected.getMessage());
        }
        assertEquals(100L, stored("acct-1").getLong("balance"));
    }

    @Test
    void missingArgumentsAreRejectedNamingThem() {
        assertMessageStarts("filter must not be null", () -> fenced.updateOne(1, null, set("balance", 1L)));
        assertMessageStarts("update must not be null", () -> fenced.findOneAndUpdate(1, eq("_id", "acct-1"), null));
        assertMessageStarts("replacement must not be null", () -> fenced.replaceOne(1, eq("_id", "acct-1"), null));
        assertMessageStarts("options must not be null",
                () -> fenced.updateOne(1, eq("_id", "acct-1"), set("balance", 1L), (UpdateOptions) null));
        assertMessageStarts("lock must not be null", () -> fenced.updateOne((LockSession) null, eq("_id", "acct-1"),
                set("balance", 1L)));
        assertMessageStarts("collection must not be null", () -> FencedCollection.of(null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "_id", "a.b", "$fence", "fen$ce", "nul\0"})
    void badFenceFieldsAreRejectedNamingThem(String field) {
        LockConfigurationException rejected = assertThrows(LockConfigurationException.class,
                () -> FencedCollection.of(accounts, field));
        assertTrue(rejected.getMessage().startsWith("Fence field \"" + field + "\" "), rejected.getMessage());
        assertTrue(rejected.getMessage().endsWith("the fence field must be a top-level field name, not _id, without '$',"
                + " '.' or NUL, e.g. \"fencingToken\"."), rejected.getMessage());
        assertThrows(LockConfigurationException.class, () -> fenced.withFenceField(field));
    }

    @Test
    void aNullFenceFieldIsRejected() {
        assertMessageStarts("Fence field null is not allowed", () -> FencedCollection.of(accounts, null));
    }

    @Test
    void updatesThatTouchTheFenceAreRejected() {
        for (Bson update : List.of(set(FENCE, 1L), unset(FENCE), inc(FENCE, 1L), setOnInsert(FENCE, 1L),
                set(FENCE + ".x", 1L), rename(FENCE, "old"), rename("old", FENCE), combine(max("x", 1L), max(FENCE, 99L)))) {
            LockConfigurationException rejected = assertThrows(LockConfigurationException.class,
                    () -> fenced.updateOne(3, eq("_id", "acct-1"), update));
            assertTrue(rejected.getMessage().contains("changes \"fencingToken\" with $")
                    && rejected.getMessage().contains("Leave it out of the update"), rejected.getMessage());
        }
        // Another field whose name merely starts with the fence's is the caller's.
        fenced.updateOne(3, eq("_id", "acct-1"), set(FENCE + "Note", "x"));
        assertEquals(new Document("_id", "acct-1").append("balance", 100L).append(FENCE + "Note", "x").append(FENCE, 3L),
                stored("acct-1"));
    }

    @Test
    void aReplacementPassedAsAnUpdateIsRejected() {
        LockConfigurationException rejected = assertThrows(LockConfigurationException.class,
                () -> fenced.updateOne(3, eq("_id", "acct-1"), new Document("balance", 1L)));
        assertEquals("The update {\"balance\": 1} is not a document of update operators such as {$set: {...}}:"
                + " FencedCollection adds {$max: {fencingToken: token}} to it. To replace the whole document, use"
                + " replaceOne.", rejected.getMessage());
    }

    @Test
    void anUnacknowledgedCollectionIsRejected() {
        LockConfigurationException rejected = assertThrows(LockConfigurationException.class,
                () -> FencedCollection.of(accounts.withWriteConcern(WriteConcern.UNACKNOWLEDGED)));
        assertTrue(rejected.getMessage().contains(database + ".accounts has the unacknowledged write concern")
                && rejected.getMessage().contains("WriteConcern.MAJORITY"), rejected.getMessage());
    }

    private static void assertMessageStarts(String start, Executable call) {
        LockConfigurationException rejected = assertThrows(LockConfigurationException.class, call);
        assertTrue(rejected.getMessage().startsWith(start), rejected.getMessage());
    }
}
