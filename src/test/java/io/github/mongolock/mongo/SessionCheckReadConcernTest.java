package io.github.mongolock.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.core.LeaseClaim;
import io.github.mongolock.core.SessionCheck;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The session check reads with local read concern on the primary (issue 20, item 5). Its reads decide whether a
 * holder is told {@code LEASE_LOST}. A majority read on a primary elected moments ago can answer from a snapshot
 * older than writes a majority already acknowledged (the new primary learns the commit point only after it), so it
 * can miss the grant of a lock its holder has: a false loss. A local read on the primary includes every
 * majority-acknowledged write (a member without them cannot be elected).
 *
 * <p>No failover can be run here; this test checks what every check read asks the server for, which is what the
 * fix is. On main before the fix both reads asked for {@code majority}.
 */
@ExtendWith(MongoBackend.class)
class SessionCheckReadConcernTest {

    @Test
    void everyReadOfTheSessionCheckAsksForLocalReadConcern(TestMongo mongo) {
        List<BsonDocument> finds = new CopyOnWriteArrayList<>();
        CommandListener listener = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                if (event.getCommandName().equals("find")) {
                    finds.add(event.getCommand().clone());
                }
            }
        };
        try (MongoClient client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(mongo.uri())).addCommandListener(listener).build())) {
            MongoLockStore store = new MongoLockStore(
                    client.getDatabase(mongo.freshDatabase()).getCollection(MongoLockManager.DEFAULT_COLLECTION));
            String session = store.openSession("check-reads", Duration.ofSeconds(30));
            finds.clear();

            // A claim the store does not show held: the check reads the session's locks, then the claim's document.
            SessionCheck check = store.checkSession(session, List.of(new LeaseClaim("not-held", "owner-1", "s1")));

            assertEquals(SessionCheck.TAKEN_OVER, check.lossReason("not-held"));
            assertEquals(2, finds.size(), () -> "the check's two reads: " + finds);
            for (BsonDocument find : finds) {
                String readPreference = find.getDocument("$readPreference", new BsonDocument())
                        .getString("mode", new BsonString("primary")).getValue();
                assertEquals("primary", readPreference, () -> "read on the primary: " + find.toJson());
                String readConcern = find.getDocument("readConcern", new BsonDocument())
                        .getString("level", new BsonString("none")).getValue();
                assertEquals("local", readConcern, () -> "local read concern: " + find.toJson());
            }
        }
    }
}
