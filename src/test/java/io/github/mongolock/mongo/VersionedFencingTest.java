package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.inc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import io.github.mongolock.FencedWriteRejectedException;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockSession;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fenced forms of {@link VersionedCollection}: version and fencing token checked in one update, a newer
 * token accepted, an older one refused as {@link FencedCollection} refuses it, and never retried.
 */
@ExtendWith(MongoBackend.class)
class VersionedFencingTest {

    private static final String FENCE = FencedCollection.DEFAULT_FENCE_FIELD;
    private static final ConflictRetries QUICK = new ConflictRetries(4, Duration.ofMillis(1), Duration.ofMillis(4));

    private final TestMongo mongo;
    private String database;
    private MongoCollection<Document> accounts;
    private VersionedCollection versioned;

    VersionedFencingTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void fencedAccount() {
        database = mongo.freshDatabase();
        accounts = mongo.collection(database, "accounts");
        versioned = VersionedCollection.of(accounts).withRetries(QUICK);
        accounts.insertOne(new Document("_id", "acct-1").append("balance", 100L).append("version", 2L).append(FENCE, 5L));
    }

    private Document stored() {
        return accounts.find(eq("_id", "acct-1")).first();
    }

    private static Document deposit(Document account) {
        return account.append("balance", account.getLong("balance") + 10);
    }

    @Test
    void aNewerOrEqualTokenIsAcceptedAndRaisesTheFence() {
        VersionedUpdate newer = versioned.update(7, "acct-1", VersionedFencingTest::deposit).orElseThrow();
        Document expected = new Document("_id", "acct-1").append("balance", 110L).append("version", 3L).append(FENCE, 7L);
        assertEquals(expected, stored());
        assertEquals(expected, newer.document());

        VersionedUpdate equal = versioned.update(7, "acct-1", VersionedFencingTest::deposit).orElseThrow();
        assertEquals(4, equal.version());
        assertEquals(7L, stored().getLong(FENCE));
    }

    @Test
    void anOlderTokenIsRefusedAtTheReadBeforeTheChangeRuns() {
        AtomicInteger calls = new AtomicInteger();
        FencedWriteRejectedException refused = assertThrows(FencedWriteRejectedException.class,
                () -> versioned.update(4, "acct-1", account -> {
                    calls.incrementAndGet();
                    return deposit(account);
                }));
        assertEquals(0, calls.get(), "nothing to compute: the result could never be stored");
        assertEquals(4, refused.fencingToken());
        assertEquals(5, refused.fenceSeen());
        assertEquals("Write to " + database + ".accounts refused: document {\"_id\": \"acct-1\"} carries fencing token 5"
                + " in \"fencingToken\", higher than this write's token 4. A later holder of the lock has read or written"
                + " it, so this holder's lease was lost; nothing was written. Stop the work done under this lock; if it"
                + " must still happen, acquire the lock again and redo it from a fresh read.", refused.getMessage());
        assertEquals(new Document("_id", "acct-1").append("balance", 100L).append("version", 2L).append(FENCE, 5L), stored());
    }

    /** A newer holder registers its token between this update's read and its write; the version did not move. */
    @Test
    void aFenceRaisedAfterTheReadRefusesTheWriteWithoutRetry() {
        FencedCollection<Document> newerHolder = FencedCollection.of(accounts);
        AtomicInteger calls = new AtomicInteger();
        FencedWriteRejectedException refused = assertThrows(FencedWriteRejectedException.class,
                () -> versioned.update(6, "acct-1", account -> {
                    calls.incrementAndGet();
                    newerHolder.findOneAndUpdate(9, eq("_id", "acct-1"), new Document()); // reads and registers token 9
                    return deposit(account);
                }));
        assertEquals(1, calls.get(), "a refusal is never retried");
        assertEquals(9, refused.fenceSeen());
        assertEquals(new Document("_id", "acct-1").append("balance", 100L).append("version", 2L).append(FENCE, 9L), stored());
    }

    /** The same token, but another writer moved the version: a conflict, retried on a fresh read. */
    @Test
    void aVersionMovedAfterTheReadIsAConflictAndRetried() {
        AtomicInteger calls = new AtomicInteger();
        VersionedUpdate done = versioned.update(5, "acct-1", account -> {
            if (calls.incrementAndGet() == 1) {
                accounts.updateOne(eq("_id", "acct-1"), inc("version", 1L));
            }
            return deposit(account);
        }).orElseThrow();
        assertEquals(2, done.attempts());
        assertEquals(new Document("_id", "acct-1").append("balance", 110L).append("version", 4L).append(FENCE, 5L), stored());
    }

    @Test
    void versionAndTokenAreCheckedInOneUpdate() {
        List<BsonDocument> updates = new CopyOnWriteArrayList<>();
        CommandListener listener = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                if (event.getCommandName().equals("update")) {
                    updates.add(event.getCommand().clone());
                }
            }
        };
        try (MongoClient client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(mongo.uri())).addCommandListener(listener).build())) {
            VersionedCollection watched = VersionedCollection.of(client.getDatabase(database).getCollection("accounts"));
            watched.update(7, "acct-1", VersionedFencingTest::deposit).orElseThrow();
        }
        assertEquals(1, updates.size(), "one update command: " + updates);
        List<BsonDocument> statements = updates.get(0).getArray("updates").stream().map(value -> value.asDocument()).toList();
        assertEquals(1, statements.size());
        String filter = statements.get(0).getDocument("q").toJson();
        String update = statements.get(0).getDocument("u").toJson();
        assertTrue(filter.contains("\"_id\": \"acct-1\"") && filter.contains("\"version\": 2")
                && filter.contains("{\"fencingToken\": {\"$lte\": 7}}"), filter);
        assertTrue(update.contains("\"$inc\": {\"version\": 1}") && update.contains("\"$max\": {\"fencingToken\": 7}")
                && update.contains("\"$set\": {\"balance\": 110}"), update);
    }

    @Test
    void aSessionGivesItsTokenAndARefusalNamesTheLock() {
        accounts.insertOne(new Document("_id", "acct-9").append("balance", 100L)); // never fenced
        try (MongoLockManager locks = MongoLockManager.builder().client(mongo.client()).database(database).build()) {
            LockSession earlier = locks.acquire("account-acct-9");
            earlier.close();
            try (LockSession later = locks.acquire("account-acct-9")) {
                VersionedUpdate done = versioned.update(later, "acct-9", VersionedFencingTest::deposit).orElseThrow();
                assertEquals(later.fencingToken(), done.document().getLong(FENCE));

                FencedWriteRejectedException refused = assertThrows(FencedWriteRejectedException.class,
                        () -> versioned.update(earlier, "acct-9", VersionedFencingTest::deposit));
                assertEquals("account-acct-9", refused.lockName());
                assertTrue(refused.getMessage().contains("(lock \"account-acct-9\")"), refused.getMessage());
                assertEquals(new Document("_id", "acct-9").append("balance", 110L).append("version", 1L)
                        .append(FENCE, later.fencingToken()), accounts.find(eq("_id", "acct-9")).first());
            }
        }
    }

    @Test
    void anInsertedDocumentCarriesTheToken() {
        VersionedUpdate created = versioned.updateOrInsert(3, "acct-2", absent -> new Document("balance", 0L));
        assertEquals(new Document("_id", "acct-2").append("balance", 0L).append("version", 1L).append(FENCE, 3L),
                accounts.find(eq("_id", "acct-2")).first());
        assertEquals(created.document(), accounts.find(eq("_id", "acct-2")).first());
        assertThrows(FencedWriteRejectedException.class,
                () -> versioned.updateOrInsert(2, "acct-2", account -> account.orElseThrow()));
    }

    @Test
    void aFenceThatIsNotATokenAndATokenBelowOneAreRefused() {
        accounts.insertOne(new Document("_id", "odd").append("balance", 1L).append(FENCE, "nine"));
        LockConfigurationException notAToken = assertThrows(LockConfigurationException.class,
                () -> versioned.update(7, "odd", VersionedFencingTest::deposit));
        assertTrue(notAToken.getMessage().contains("has {\"fencingToken\": \"nine\"}, which is not a fencing token"),
                notAToken.getMessage());
        LockConfigurationException zero = assertThrows(LockConfigurationException.class,
                () -> versioned.update(0, "acct-1", VersionedFencingTest::deposit));
        assertTrue(zero.getMessage().startsWith("Fencing token 0 is not a token"), zero.getMessage());
        assertThrows(LockConfigurationException.class,
                () -> versioned.update((LockSession) null, "acct-1", VersionedFencingTest::deposit));
        assertNull(accounts.find(eq("_id", "odd")).first().get("version"));
    }
}
