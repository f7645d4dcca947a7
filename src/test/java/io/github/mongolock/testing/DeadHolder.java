package io.github.mongolock.testing;

import com.mongodb.client.MongoCollection;
import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.LockStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bson.Document;

/**
 * A holder that was granted a lock and then died: its session is opened, the lock granted under it, and nothing
 * ever renews either. Tests use it to show how waiters recover such a lock.
 */
public final class DeadHolder {

    private DeadHolder() {
    }

    /** Grants {@code name} to {@code owner} under a new session of its manager with {@code lease}; fails if refused. */
    public static AcquireAttempt.Granted grant(LockStore store, String name, String owner, Duration lease) {
        String session = store.openSession(LockStore.managerOf(owner), lease);
        AcquireAttempt attempt = store.tryAcquire(name, owner, session);
        if (!(attempt instanceof AcquireAttempt.Granted granted)) {
            throw new AssertionError("the dead holder's grant of " + name + " was refused: " + attempt);
        }
        return granted;
    }

    /**
     * Makes the lock {@code name} in the MongoDB collection {@code raw} look renewed {@code ago} by the database's
     * clock: its session's {@code renewedAt} for a lock held under a session, else the lock's own.
     */
    public static void renewedAgo(MongoCollection<Document> raw, String name, Duration ago) {
        Document lock = raw.find(new Document("_id", name)).first();
        if (lock == null) {
            throw new AssertionError("no lock document " + name);
        }
        Document renewed = new Document("$set", new Document("renewedAt", Date.from(Instant.now().minus(ago))));
        Object session = lock.get("session");
        raw.updateOne(new Document("_id", session instanceof String id
                ? new Document("mongolock", "session").append("id", id) : name), renewed);
    }
}
