package io.github.mongolock.testing;

import com.mongodb.client.MongoCollection;
import org.bson.Document;

/** Reads, for tests, the session document a stored lock is held under. */
public final class StoredSessions {

    private StoredSessions() {
    }

    /** The session document of the lock {@code name} in {@code raw}; fails when the lock is not held under one. */
    public static Document of(MongoCollection<Document> raw, String name) {
        Document lock = raw.find(new Document("_id", name)).first();
        if (lock == null || !(lock.get("session") instanceof String session)) {
            throw new AssertionError("lock " + name + " is not held under a session: " + lock);
        }
        Document stored = raw.find(new Document("_id", new Document("mongolock", "session").append("id", session))).first();
        if (stored == null) {
            throw new AssertionError("lock " + name + " names session " + session + ", which has no document");
        }
        return stored;
    }
}
