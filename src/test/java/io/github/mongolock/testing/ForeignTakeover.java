package io.github.mongolock.testing;

import com.mongodb.client.MongoCollection;
import org.bson.Document;

/**
 * What another manager's takeover does to a held lock, written directly: the holder's session ended (as the
 * waiter's compare-and-set ends it), then the lock given to {@code newOwner} under a session of its own with the
 * next token. The holder's next session renewal finds its session ended and reports the lock lost.
 */
public final class ForeignTakeover {

    private ForeignTakeover() {
    }

    public static void take(MongoCollection<Document> raw, String name, String newOwner) {
        raw.updateOne(new Document("_id", StoredSessions.of(raw, name).get("_id")),
                new Document("$set", new Document("state", "ended").append("endedBy", newOwner)));
        raw.updateOne(new Document("_id", name), new Document("$set", new Document("owner", newOwner)
                .append("leaseId", "s-foreign").append("session", "foreign-session"))
                .append("$inc", new Document("version", 1L).append("token", 1L)));
    }
}
