package io.github.mongolock;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.set;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import io.github.mongolock.core.LockCoordinator;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.MonotonicClock;
import io.github.mongolock.core.SessionRenewal;
import io.github.mongolock.mongo.FencedCollection;
import io.github.mongolock.mongo.MongoLockStore;
import io.github.mongolock.testing.Await;
import io.github.mongolock.testing.ForwardingLockStore;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 13's scenario: a holder paused past its lease comes back and writes after another manager took
 * the lock over; MongoDB refuses the late write through {@link FencedCollection}, and keeps the new
 * holder's. Manager A is the lock manager as {@code MongoLockManager}'s builder wires it (a
 * {@link LockCoordinator} over a {@link MongoLockStore} on the same lock collection) whose renewal
 * thread freezes on command, as a GC pause or {@code SIGSTOP} would freeze it; manager B is a plain
 * {@link MongoLockManager}. A's "pause" is A's code simply not running until B has done its part.
 */
@ExtendWith(MongoBackend.class)
class PausedHolderFencedWriteTest {

    private static final Duration A_LEASE = Duration.ofMillis(600);
    private static final String LOCK = "account-acct-1";

    private final TestMongo mongo;
    private FreezableRenewals storeOfA;
    private LockCoordinator managerA;
    private MongoLockManager managerB;
    private MongoCollection<Document> accounts;
    private FencedCollection<Document> fenced;

    PausedHolderFencedWriteTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void twoManagersOnOneDatabase() {
        String database = mongo.freshDatabase();
        storeOfA = new FreezableRenewals(new MongoLockStore(
                mongo.collection(database, MongoLockManager.DEFAULT_COLLECTION), Duration.ofSeconds(5)));
        managerA = new LockCoordinator(storeOfA, "node-a:" + System.nanoTime(), A_LEASE, Duration.ofSeconds(10),
                MonotonicClock.system(), List.of());
        managerB = MongoLockManager.builder().client(mongo.client()).database(database).instanceId("node-b").build();
        accounts = mongo.collection(database, "accounts");
        accounts.insertOne(new Document("_id", "acct-1").append("balance", 100L));
        fenced = FencedCollection.of(accounts);
    }

    @AfterEach
    void closeManagers() throws InterruptedException {
        storeOfA.thawAndSettle();
        managerA.close();
        managerB.close();
    }

    @Test
    void aPausedHoldersLateWriteIsRefusedByTheDatabaseWhileTheNewHoldersIsAccepted() throws InterruptedException {
        LockSession heldByA = managerA.acquire(LOCK);
        Document readByA = fenced.findOneAndUpdate(heldByA, eq("_id", "acct-1"), new Document());
        long balanceOfA = readByA.getLong("balance") - 50; // A charges 50, then freezes before writing it

        storeOfA.freeze();
        long frozenAt = System.nanoTime();
        try (LockSession heldByB = managerB.acquire(LOCK, Duration.ofSeconds(10))) {
            System.out.printf("[fenced write] B took the lock over %d ms after A froze (A's lease %s); tokens A %d, B %d%n",
                    (System.nanoTime() - frozenAt) / 1_000_000, A_LEASE, heldByA.fencingToken(), heldByB.fencingToken());
            assertTrue(heldByB.fencingToken() > heldByA.fencingToken(), "a takeover is a fresh grant with a higher token");
            Document readByB = fenced.findOneAndUpdate(heldByB, eq("_id", "acct-1"), new Document());
            assertEquals(1, fenced.updateOne(heldByB, eq("_id", "acct-1"), set("balance", readByB.getLong("balance") - 30))
                    .getModifiedCount(), "the new holder's write is accepted");

            // A wakes up and writes what it computed before the pause. Only the database can stop it now.
            FencedWriteRejectedException refused = assertThrows(FencedWriteRejectedException.class,
                    () -> fenced.updateOne(heldByA, eq("_id", "acct-1"), set("balance", balanceOfA)));
            assertEquals(LOCK, refused.lockName());
            assertEquals(heldByA.fencingToken(), refused.fencingToken());
            assertEquals(heldByB.fencingToken(), refused.fenceSeen());
            assertEquals(new Document("_id", "acct-1").append("balance", 70L).append("fencingToken", heldByB.fencingToken()),
                    accounts.find(eq("_id", "acct-1")).first(), "B's charge stands, A's is refused");
        }
        assertFalse(heldByA.isHeld(), "A's lease ran out while it was frozen");
        storeOfA.thawAndSettle();
        assertThrows(LockLostException.class, heldByA::close);
    }

    @Test
    void theNewHoldersFencedReadAloneShutsThePausedHolderOut() throws InterruptedException {
        LockSession heldByA = managerA.acquire(LOCK);
        Document readByA = fenced.findOneAndUpdate(heldByA, eq("_id", "acct-1"), new Document());

        storeOfA.freeze();
        long tokenOfB;
        try (LockSession heldByB = managerB.acquire(LOCK, Duration.ofSeconds(10))) {
            tokenOfB = heldByB.fencingToken();
            // B has only read (and so registered its token) when A's late write arrives: the window a fence on
            // writes alone would leave open.
            Document readByB = fenced.findOneAndUpdate(heldByB, eq("_id", "acct-1"), new Document());
            assertThrows(FencedWriteRejectedException.class,
                    () -> fenced.updateOne(heldByA, eq("_id", "acct-1"), set("balance", readByA.getLong("balance") - 50)));
            assertEquals(100L, accounts.find(eq("_id", "acct-1")).first().getLong("balance"), "A's write changed nothing");
            fenced.updateOne(heldByB, eq("_id", "acct-1"), set("balance", readByB.getLong("balance") - 30));
        }
        assertEquals(new Document("_id", "acct-1").append("balance", 70L).append("fencingToken", tokenOfB),
                accounts.find(eq("_id", "acct-1")).first());
        storeOfA.thawAndSettle();
        assertThrows(LockLostException.class, heldByA::close);
    }

    /** Manager A's store: renewals stop reaching MongoDB while frozen, and go on once thawed. */
    private static final class FreezableRenewals extends ForwardingLockStore {
        private final CountDownLatch thawed = new CountDownLatch(1);
        private final AtomicInteger renewing = new AtomicInteger();
        private volatile boolean frozen;

        FreezableRenewals(LockStore real) {
            super(real);
        }

        void freeze() {
            frozen = true;
        }

        /**
         * Lets the frozen renewal reach MongoDB (where it finds the lock taken over) and waits for it to
         * return, so that closing the manager does not interrupt it half-way.
         */
        void thawAndSettle() throws InterruptedException {
            thawed.countDown();
            Await.await(() -> renewing.get() == 0, "manager A's renewal thread is out of the store");
        }

        @Override
        public SessionRenewal renewSession(String session) {
            renewing.incrementAndGet();
            try {
                if (frozen) {
                    thawed.await();
                }
                return real.renewSession(session);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new LockInterruptedException("interrupted while frozen", interrupted);
            } finally {
                renewing.decrementAndGet();
            }
        }
    }
}
