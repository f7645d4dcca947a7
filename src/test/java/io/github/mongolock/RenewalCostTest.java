package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Renewing many held locks costs a constant number of round trips per interval, counted at the driver. */
@ExtendWith(MongoBackend.class)
class RenewalCostTest {

    private static final int LOCKS = 300;
    // Renewed every 2 s. The stand-in scans the collection for an $in (real MongoDB uses the _id
    // index), so its renewals slow down with the number of locks and with machine load: the lease
    // leaves room for that. 300 locks renewed one by one would be >= 300 commands per interval.
    private static final Duration LEASE = Duration.ofSeconds(6);
    private static final Duration WATCHED = Duration.ofMillis(6_500);

    @Test
    void renewingManyLocksTakesOneRoundTripPerInterval(TestMongo mongo) throws Exception {
        Map<String, AtomicInteger> commands = new ConcurrentHashMap<>();
        CommandListener counter = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                commands.computeIfAbsent(event.getCommandName(), name -> new AtomicInteger()).incrementAndGet();
            }
        };
        try (MongoClient client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(mongo.uri())).addCommandListener(counter).build());
             MongoLockManager manager = MongoLockManager.builder().client(client).database(mongo.freshDatabase())
                     .leaseTime(LEASE).build()) {
            List<LockSession> sessions = new ArrayList<>();
            for (int i = 0; i < LOCKS; i++) {
                sessions.add(manager.acquire("lock-" + i, Duration.ZERO));
            }
            commands.clear();
            Thread.sleep(WATCHED.toMillis());
            int updates = commands.getOrDefault("update", new AtomicInteger()).get();
            int finds = commands.getOrDefault("find", new AtomicInteger()).get();
            long intervals = WATCHED.toMillis() / (LEASE.toMillis() / 3);
            System.out.printf("[renewal cost] %d held locks, %d ms watched (~%d renewal intervals): %d update commands,"
                    + " %d find commands, all commands %s%n", LOCKS, WATCHED.toMillis(), intervals, updates, finds, commands);
            assertTrue(updates >= 2, "renewals kept happening: " + updates);
            assertTrue(updates <= intervals + 2, "one updateMany per interval, not one per lock: " + updates);
            assertEquals(0, finds, "no lease was lost, so no read was needed");
            for (LockSession session : sessions) {
                assertTrue(session.isHeld(), session.name());
                session.close();
            }
        }
    }
}
