package io.github.mongolock.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.MongoLockManager;
import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.LockStoreContract;
import io.github.mongolock.mongo.MongoLockStore;
import io.github.mongolock.testing.DeadHolder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The shared store contract on the in-memory store, plus what only the in-memory store has: its own database clock. */
class InMemoryLockStoreContractTest extends LockStoreContract {

    @Override
    protected LockStore newStore() {
        return new InMemoryLockStore();
    }

    @Override
    protected boolean releaseByOperator(String name, String owner, long version, String operator, String reason) {
        return ((InMemoryLockStore) store).releaseByOperator(name, owner, version, operator, reason);
    }

    @Override
    protected boolean readsTheDatabaseClock() {
        return true; // the store's Clock plays MongoDB's $$NOW
    }

    @Test
    void itsConstantsAreMongoDbsSoNeitherCanDriftAlone() {
        assertEquals(MongoLockStore.LONG_AGO, InMemoryLockStore.LONG_AGO);
        assertEquals(MongoLockStore.TURN_GRACE, InMemoryLockStore.TURN_GRACE);
        assertEquals(MongoLockManager.DEFAULT_LEASE_TIME, InMemoryLocks.DEFAULT_LEASE_TIME);
        assertEquals(MongoLockManager.DEFAULT_WAIT_TIME, InMemoryLocks.DEFAULT_WAIT_TIME);
    }

    @Test
    void theGivenClockIsTheDatabasesClockForTheFastPathAndInspect() {
        AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2030-01-01T00:00:00Z"));
        Clock database = new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now.get();
            }
        };
        InMemoryLockStore stepped = new InMemoryLockStore(database);
        DeadHolder.grant(stepped, "job", "a:1", LEASE);
        assertEquals(now.get().plus(LEASE), stepped.inspect("job").orElseThrow().expiresAt());
        AcquireAttempt.Busy fresh = assertInstanceOf(AcquireAttempt.Busy.class, stepped.tryAcquire("job", "b:1", stepped.openSession("b", LEASE)));
        assertFalse(fresh.sighting().orElseThrow().endedLongAgo());
        now.set(now.get().plus(Duration.ofMinutes(10)));
        assertTrue(stepped.inspect("job").isEmpty(), "by the database's clock the lease is over");
        AcquireAttempt.Busy stale = assertInstanceOf(AcquireAttempt.Busy.class, stepped.tryAcquire("job", "b:1", stepped.openSession("b", LEASE)));
        assertTrue(stale.sighting().orElseThrow().endedLongAgo(), "unrenewed for 10 minutes on a 30 s lease: the fast path");
    }

    @Test
    void leasesAreStoredRoundedUpToWholeMillisecondsAsInMongoDb() {
        grant("job", "a:1", Duration.ofNanos(100_900_000));
        assertEquals(Duration.ofMillis(101), sight("job", "b:1").holderLease(), "a waiter never watches less than the lease");
    }
}
