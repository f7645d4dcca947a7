package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.ScriptedCollection;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 31, defect 1, through the public API as a user meets it: two managers, the waiter's read of the holder's
 * session answered from a snapshot before the session's insert (as a newly elected primary of MongoDB 5.0 to 7.0
 * can, SERVER-53813). On 13c7186 the waiter took the lock at once and both {@code isHeld()} were true for seconds.
 */
@ExtendWith(MongoBackend.class)
class StaleSessionReadTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private final TestMongo mongo;

    StaleSessionReadTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @Test
    void aWaiterThatReadsALiveSessionAsMissingDoesNotTakeItsLock() {
        String database = mongo.freshDatabase();
        ScriptedCollection staleSessionRead = ScriptedCollection.missingReads(1, ScriptedCollection::namesASession);
        try (MongoLockManager holder = MongoLockManager.builder().client(mongo.client()).database(database)
                .instanceId("holder").leaseTime(LEASE).build();
             MongoLockManager waiter = MongoLockManager.builder().client(staleSessionRead.wrapClient(mongo.client()))
                     .database(database).instanceId("waiter").leaseTime(LEASE).build()) {
            try (LockSession held = holder.acquire("payments")) {
                Optional<LockSession> taken = waiter.tryAcquire("payments", LockOptions.defaults().waitTime(Duration.ofSeconds(1)));
                taken.ifPresent(LockSession::close);
                assertEquals(1, staleSessionRead.happened(), "the waiter's read of the holder's session found nothing");
                assertTrue(taken.isEmpty(), "the waiter took a lock whose holder's session is live (holder isHeld() = "
                        + held.isHeld() + ")");
                assertTrue(held.isHeld(), "the holder still holds it");
            }
            try (LockSession next = waiter.acquire("payments", Duration.ofSeconds(5))) {
                assertTrue(next.isHeld(), "released by its holder, the lock goes to the waiter");
            }
        }
        assertFalse(mongo.client().getDatabase(database).getCollection("locks").find().first() == null);
    }
}
