package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.pullAll;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.setOnInsert;
import static com.mongodb.client.model.Updates.unset;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.MongoClientSettings;
import java.time.Duration;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.junit.jupiter.api.Test;

/**
 * The hot path's commands are built directly as BSON documents (issue 22) instead of rendered from the
 * driver's {@code Filters}/{@code Updates} on every call: they must stay the very same commands, field
 * order and BSON types included. The {@code Updates} forms below are what the store sent before.
 */
class LockWritesShapeTest {

    private static final JsonWriterSettings EXACT = JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

    private static String sent(Bson command) {
        return command.toBsonDocument(BsonDocument.class, MongoClientSettings.getDefaultCodecRegistry()).toJson(EXACT);
    }

    @Test
    void theGrantIsTheSameCommand() {
        String manager = "web-1:0123456789abcdef";
        Bson before = combine(combine(set("owner", manager + ":7"), set("holds", 1), set("leaseId", "s123"),
                set("session", "s-1"), set("leaseMs", LockDocument.EARLIER_VERSIONS_LEASE_MS), inc("version", 1L), inc("token", 1L), inc("beat", 1L), currentDate("acquiredAt"),
                currentDate("renewedAt"), unset("releasedAt"), unset("freedAt"), setOnInsert("tokenPending", true)),
                pullAll("queue", List.of(manager)));
        assertEquals(sent(before), sent(LockWrites.take(manager + ":7", "s-1", "s123",
                LockWrites.ManagerTerms.of(manager).unqueued())));
        assertEquals(sent(before), sent(LockWrites.take(manager + ":7", "s-1", "s123", List.of(manager))));
        Bson handOver = combine(set("owner", "o"), set("holds", 1), set("leaseId", "s1"), set("session", "s-2"),
                set("leaseMs", LockDocument.EARLIER_VERSIONS_LEASE_MS),
                inc("version", 1L), inc("token", 1L), inc("beat", 1L), currentDate("acquiredAt"), currentDate("renewedAt"),
                unset("releasedAt"), unset("freedAt"), setOnInsert("tokenPending", true));
        assertEquals(sent(handOver), sent(LockWrites.take("o", "s-2", "s1", List.of())));
    }

    @Test
    void theFreeLockFilterIsTheSameCommand() {
        String manager = "web-1:0123456789abcdef";
        Bson before = new Document("_id", "invoice-run").append("holds", 0)
                .append("$or", List.of(exists("queue.0", false), eq("queue.0", manager)));
        assertEquals(sent(before), sent(LockWrites.freeForManager("invoice-run", LockWrites.ManagerTerms.of(manager))));
        assertEquals(sent(before), sent(LockWrites.freeForManager("invoice-run", manager)));
    }

    @Test
    void releaseAndReentryAreTheSameCommands() {
        assertEquals(sent(and(eq("_id", "n"), eq("owner", "m:3"), eq("version", 41L))),
                sent(LockWrites.ownedAt("n", "m:3", 41L)));
        assertEquals(sent(combine(set("owner", null), set("holds", 0), inc("version", 1L), currentDate("freedAt"), unset("session"))),
                sent(LockWrites.free()));
        assertEquals(sent(combine(set("owner", null), set("holds", 0), inc("version", 1L), currentDate("freedAt"), unset("session"),
                unset("tokenPending"))), sent(LockWrites.freeByHolder()));
        assertEquals(sent(combine(inc("holds", 1), inc("version", 1L), currentDate("renewedAt"))),
                sent(LockWrites.reenter()));
        assertEquals(sent(combine(set("holds", 2), inc("version", 1L))), sent(LockWrites.holds(2)));
    }

    @Test
    void aManagersTermsServeOnlyItsOwnOwners() {
        LockWrites.ManagerTerms terms = LockWrites.ManagerTerms.of("web-1:abc");
        assertTrue(terms.owns("web-1:abc:1"));
        assertTrue(terms.owns("web-1:abc:123456"));
        assertFalse(terms.owns("web-1:abc"));
        assertFalse(terms.owns("web-1:abcd:1"));
        assertFalse(terms.owns("web-1:abc:1:2"));
        assertFalse(terms.owns("web-2:abc:1"));
    }
}
