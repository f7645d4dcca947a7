package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.event.CommandSucceededEvent;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Renewing many held locks costs one single-document write per renewal interval: the manager's session, never a
 * lock. Documents written are counted from the server's answers ({@code n} of every update and findAndModify).
 */
@ExtendWith(MongoBackend.class)
class RenewalCostTest {

    private static final int LOCKS = 1_000;
    /** Renewed every second. */
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration WATCHED = Duration.ofSeconds(6);

    @Test
    void aManagerHoldingAThousandLocksWritesOneDocumentPerRenewalInterval(TestMongo mongo) throws Exception {
        Map<String, AtomicInteger> commands = new ConcurrentHashMap<>();
        AtomicLong documentsWritten = new AtomicLong();
        CommandListener counter = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                commands.computeIfAbsent(event.getCommandName(), name -> new AtomicInteger()).incrementAndGet();
            }

            @Override
            public void commandSucceeded(CommandSucceededEvent event) {
                documentsWritten.addAndGet(documentsWrittenBy(event.getCommandName(), event.getResponse()));
            }
        };
        String database = mongo.freshDatabase();
        try (MongoClient client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(mongo.uri())).addCommandListener(counter).build());
             MongoLockManager manager = MongoLockManager.builder().client(client).database(database)
                     .leaseTime(LEASE).build()) {
            List<LockSession> sessions = new ArrayList<>();
            for (int i = 0; i < LOCKS; i++) {
                sessions.add(manager.acquire("lock-" + i, Duration.ZERO));
            }
            Map<Object, Object> versionsBefore = versions(mongo, database);
            commands.clear();
            documentsWritten.set(0);
            Thread.sleep(WATCHED.toMillis());
            long written = documentsWritten.get();
            Map<String, Integer> seen = new java.util.TreeMap<>();
            commands.forEach((name, count) -> seen.put(name, count.get()));
            long intervals = WATCHED.toMillis() / (LEASE.toMillis() / 3);
            System.out.printf("[renewal cost] %d held locks, %d ms watched (%d renewal intervals): %d documents written"
                    + " (%.2f per interval), commands %s%n", LOCKS, WATCHED.toMillis(), intervals, written,
                    (double) written / intervals, seen);
            assertTrue(written >= intervals - 2, "the session kept being renewed: " + written);
            assertTrue(written <= intervals + 1, "one document per interval (the session), not one per lock: " + written);
            assertEquals(versionsBefore, versions(mongo, database), "no lock document was written at all");
            for (LockSession session : sessions) {
                assertTrue(session.isHeld(), session.name());
                session.close();
            }
        }
    }

    /** Every lock document's version, by name. */
    private static Map<Object, Object> versions(TestMongo mongo, String database) {
        Map<Object, Object> versions = new java.util.HashMap<>();
        for (Document lock : mongo.collection(database, MongoLockManager.DEFAULT_COLLECTION)
                .find(new Document("_id", new Document("$type", "string")))) {
            versions.put(lock.get("_id"), lock.get("version"));
        }
        return versions;
    }

    /** How many documents the server says a command wrote: an update's {@code n}, a findAndModify's {@code lastErrorObject.n}. */
    static long documentsWrittenBy(String command, BsonDocument response) {
        return switch (command) {
            case "update", "delete", "insert" -> response.containsKey("n") ? response.getNumber("n").longValue() : 0;
            case "findAndModify" -> response.containsKey("lastErrorObject") && response.getDocument("lastErrorObject").containsKey("n")
                    ? response.getDocument("lastErrorObject").getNumber("n").longValue() : 0;
            default -> 0;
        };
    }
}
