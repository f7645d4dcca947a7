package io.github.mongolock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ReadWriteStore} must do, one atomic call at a time (spec/RWLOCK-DESIGN.md): reads share, a write
 * excludes everything, a queued writer stops new reads, the downgrade is granted beside the caller's own write entry
 * only, and the records are a namespace of their own. A store implementation extends this class.
 */
public abstract class ReadWriteStoreContract {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final int WHOLE = ReadWriteStore.WHOLE;

    /** An empty store no other test touches. */
    protected abstract LockStore newStore();

    private static ReadWriteStore readWrite(LockStore store) {
        return store.readWriteStore().orElseThrow(() -> new AssertionError(store + " keeps no read-write locks"));
    }

    private static PermitAttempt.Granted granted(PermitAttempt attempt) {
        return assertInstanceOf(PermitAttempt.Granted.class, attempt);
    }

    private static void busy(PermitAttempt attempt, String why) {
        assertInstanceOf(PermitAttempt.Busy.class, attempt, why);
    }

    @Test
    void readsShareAndAWriteWaitsForThemAll() {
        LockStore store = newStore();
        String session = store.openSession("m1", LEASE);
        ReadWriteStore locks = readWrite(store);
        long first = granted(locks.tryAcquire("catalog", WHOLE, 1, "m1:a:1", session)).fencingToken();
        long second = granted(locks.tryAcquire("catalog", WHOLE, 1, "m2:b:1", session)).fencingToken();
        assertTrue(second > first);
        busy(locks.tryAcquire("catalog", WHOLE, WHOLE, "m3:c:1", session), "readers hold it");
        assertTrue(locks.release("catalog", "m1:a:1", 1));
        busy(locks.tryAcquire("catalog", WHOLE, WHOLE, "m3:c:2", session), "one reader still holds it");
        assertTrue(locks.release("catalog", "m2:b:1", 1));
        long write = granted(locks.tryAcquire("catalog", WHOLE, WHOLE, "m3:c:3", session)).fencingToken();
        assertTrue(write > second, "a write's token exceeds every earlier grant's");
        busy(locks.tryAcquire("catalog", WHOLE, 1, "m1:a:2", session), "no reader beside a writer");
        busy(locks.tryAcquire("catalog", WHOLE, WHOLE, "m1:a:3", session), "no second writer");
    }

    @Test
    void aQueuedWriterStopsNewReadsAndGoesFirst() {
        LockStore store = newStore();
        String session = store.openSession("m1", LEASE);
        ReadWriteStore locks = readWrite(store);
        granted(locks.tryAcquire("catalog", WHOLE, 1, "m1:a:1", session));
        busy(locks.tryAcquire("catalog", WHOLE, WHOLE, "m2:b:1", session), "a reader holds it");
        locks.joinQueue("catalog", "m2:b");
        busy(locks.tryAcquire("catalog", WHOLE, 1, "m3:c:1", session), "a writer waits: no new reader (writer preference)");
        busy(locks.tryAcquire("catalog", WHOLE, 1, "m2:b:2", session), "not even one of the waiting writer's manager");
        assertTrue(locks.release("catalog", "m1:a:1", 1));
        granted(locks.tryAcquire("catalog", WHOLE, WHOLE, "m2:b:3", session));
        assertEquals(List.of(), locks.inspect("catalog").orElseThrow().queue(), "the write grant took its manager out");
    }

    @Test
    void theDowngradeIsGrantedBesideTheCallersOwnWriteOnly() {
        LockStore store = newStore();
        String session = store.openSession("m1", LEASE);
        ReadWriteStore locks = readWrite(store);
        long write = granted(locks.tryAcquire("catalog", WHOLE, WHOLE, "m1:a:1", session)).fencingToken();
        busy(locks.downgrade("catalog", "m9:z:1", "m9:z:2", session), "not beside another owner's write");
        long read = granted(locks.downgrade("catalog", "m1:a:1", "m1:a:2", session)).fencingToken();
        assertTrue(read > write);
        assertEquals(WHOLE + 1, locks.inspect("catalog").orElseThrow().used(), "both entries counted while both are held");
        assertTrue(locks.release("catalog", "m1:a:1", WHOLE));
        busy(locks.tryAcquire("catalog", WHOLE, WHOLE, "m2:b:1", session), "the downgraded read still excludes writers");
        granted(locks.tryAcquire("catalog", WHOLE, 1, "m2:b:2", session));
        busy(locks.downgrade("catalog", "m1:a:1", "m1:a:3", session), "no downgrade once the write entry is gone");
    }

    @Test
    void aReadWriteLockNeverClashesWithASemaphoreOrALockOfTheSameName() {
        LockStore store = newStore();
        String session = store.openSession("m1", LEASE);
        granted(readWrite(store).tryAcquire("shared-name", WHOLE, WHOLE, "m1:a:1", session));
        granted(store.permitStore().orElseThrow().tryAcquire("shared-name", 1, 1, "m1:a:2", session));
        assertInstanceOf(AcquireAttempt.Granted.class, store.tryAcquire("shared-name", "m1:a:3", session));
        assertEquals(1, readWrite(store).heldUnder(session).size(), "the session check of read-write locks sees only them");
    }
}
