package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A permit's acquire and release cost the round trips of a lock's (issue 32): counted by the driver's command
 * listener, on one manager whose session is already open, uncontended, side by side in one run.
 */
@ExtendWith(MongoBackend.class)
class PermitRoundTripsTest {

    private static final int CYCLES = 50;

    @Test
    void anUncontendedPermitOrReadOrWriteCycleCostsWhatALockCycleCosts(TestMongo mongo) {
        List<String> commands = Collections.synchronizedList(new ArrayList<>());
        CommandListener counter = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                if (!"getMore".equals(event.getCommandName()) && !"aggregate".equals(event.getCommandName())) {
                    commands.add(event.getCommandName()); // the change stream's own traffic is not the cycle's
                }
            }
        };
        String database = mongo.freshDatabase();
        try (MongoClient client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(mongo.uri())).addCommandListener(counter).build());
             MongoLockManager manager = MongoLockManager.builder().client(client).database(database)
                     .leaseTime(Duration.ofSeconds(30)).pushWakeUp(false).build()) {
            Permits exports = manager.permits("export", 3);
            ReadWriteLock catalog = manager.readWriteLock("catalog");
            exports.acquire().close(); // opens the session and creates the semaphore's document
            manager.acquire("job").close(); // and the lock's
            catalog.write().close(); // and the read-write lock's
            commands.clear();
            for (int i = 0; i < CYCLES; i++) {
                exports.acquire().close();
            }
            List<String> permitCycles = List.copyOf(commands);
            commands.clear();
            for (int i = 0; i < CYCLES; i++) {
                manager.acquire("job").close();
            }
            List<String> lockCycles = List.copyOf(commands);
            System.out.printf("[round trips] %d cycles: permits %d commands %s; lock %d commands %s%n", CYCLES,
                    permitCycles.size(), summary(permitCycles), lockCycles.size(), summary(lockCycles));
            assertEquals(2 * CYCLES, permitCycles.size(), "a permit's acquire and release: one command each " + summary(permitCycles));
            assertEquals(lockCycles.size(), permitCycles.size(), "as many as a lock's " + summary(lockCycles));
            commands.clear();
            for (int i = 0; i < CYCLES; i++) {
                catalog.read().close();
            }
            List<String> readCycles = List.copyOf(commands);
            commands.clear();
            for (int i = 0; i < CYCLES; i++) {
                catalog.write().close();
            }
            List<String> writeCycles = List.copyOf(commands);
            System.out.printf("[round trips] %d cycles: read %d commands %s; write %d commands %s%n", CYCLES,
                    readCycles.size(), summary(readCycles), writeCycles.size(), summary(writeCycles));
            assertEquals(lockCycles.size(), readCycles.size(), "a read's cycle as a lock's " + summary(readCycles));
            assertEquals(lockCycles.size(), writeCycles.size(), "a write's cycle as a lock's " + summary(writeCycles));
        }
    }

    private static String summary(List<String> commands) {
        java.util.Map<String, Integer> counts = new java.util.TreeMap<>();
        commands.forEach(name -> counts.merge(name, 1, Integer::sum));
        return counts.toString();
    }
}
