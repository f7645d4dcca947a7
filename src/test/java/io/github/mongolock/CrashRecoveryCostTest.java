package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import io.github.mongolock.mongo.MongoLockStore;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import io.github.mongolock.core.AcquireAttempt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What taking over a dead manager's many locks costs, counted in commands (never timed): once one watch of a lease
 * has ended the dead manager's session, each of its other locks is taken on the waiter's first attempt, in four
 * commands (the failed upsert, the lock read, the session read, the takeover), without a second attempt. A dead
 * manager's session is opened and its locks granted directly in the store; nothing renews them.
 *
 * <p>Issue 20's benchmark (case 8, 8 threads, 10,000 locks on the stand-in) counted about 1.5 attempts per lock;
 * one thread over 40 locks sends exactly four commands each, which this test holds to.
 */
@ExtendWith(MongoBackend.class)
class CrashRecoveryCostTest {

    private static final int LOCKS = 40;
    private static final Duration LEASE = Duration.ofMillis(800);
    /** As {@link HotPathBudgetTest}'s, and the session check's index, which the first session creates. */
    private static final Set<String> NOT_LOCK_COMMANDS = Stream.concat(HotPathBudgetTest.NOT_LOCK_COMMANDS.stream(),
            Stream.of("createIndexes")).collect(Collectors.toUnmodifiableSet());

    @Test
    void aDeadManagersOtherLocksAreTakenOnTheFirstAttemptAfterItsSessionEnded(TestMongo mongo) {
        String database = mongo.freshDatabase();
        MongoLockStore raw = new MongoLockStore(mongo.collection(database, MongoLockManager.DEFAULT_COLLECTION));
        String session = raw.openSession("dead:1", LEASE);
        for (int i = 0; i < LOCKS; i++) {
            assertTrue(raw.tryAcquire("crashed-" + i, "dead:1:" + i, session) instanceof AcquireAttempt.Granted);
        }
        Map<String, Integer> commands = new TreeMap<>();
        CommandListener counter = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                if (!NOT_LOCK_COMMANDS.contains(event.getCommandName())) {
                    synchronized (commands) {
                        commands.merge(event.getCommandName() + (event.getCommandName().equals("update")
                                && event.getCommand().toJson().contains("\"state\": \"ended\"") ? "(end)" : ""), 1, Integer::sum);
                    }
                }
            }
        };
        try (MongoClient client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(mongo.uri())).addCommandListener(counter).build());
             MongoLockManager survivor = MongoLockManager.builder().client(client).database(database)
                     .leaseTime(Duration.ofSeconds(30)).pushWakeUp(false).build()) {
            List<LockSession> taken = new ArrayList<>();
            taken.add(survivor.acquire("crashed-0", Duration.ofSeconds(10))); // one watch of a lease ends the session
            Map<String, Integer> afterFirst;
            synchronized (commands) {
                afterFirst = new TreeMap<>(commands);
                commands.clear();
            }
            for (int i = 1; i < LOCKS; i++) {
                taken.add(survivor.acquire("crashed-" + i, Duration.ofSeconds(10)));
            }
            System.out.printf("[crash recovery cost] first lock (watch + session end): %s; the other %d: %s%n",
                    afterFirst, LOCKS - 1, commands);
            int others = LOCKS - 1;
            // Per lock: a failed upsert, the lock read, the session read (ended), the takeover, and the token floor's
            // read (a findAndModify that changes nothing): the crashed manager created these documents and never
            // released them, so each still waits for a grant to apply the floor (issue 31). No session write: the
            // survivor ended that session once, by a compare-and-set, and remembers it.
            assertEquals(Map.of("findAndModify", 3 * others, "aggregate", others, "find", others), commands,
                    "per lock: a failed upsert, the lock read, the session read (ended), the takeover and the floor read, nothing more");
            assertEquals(1, afterFirst.getOrDefault("update(end)", 0), "one session end for all of them: " + afterFirst);
            for (LockSession lock : taken) {
                assertTrue(lock.isHeld(), lock.name());
                lock.close();
            }
        }
    }
}
