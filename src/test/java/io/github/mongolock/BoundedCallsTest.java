package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.SilentProxy;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 11: every MongoDB call is bounded by the store timeout, whatever client the application
 * passes. The application's client here has the driver's defaults (socket timeout 0: wait forever,
 * server selection 30 s), and MongoDB stops answering without closing anything.
 */
@ExtendWith(MongoBackend.class)
class BoundedCallsTest {

    private static final Duration STORE_TIMEOUT = Duration.ofSeconds(1);

    @Test
    void callsToAServerThatNeverAnswersEndWithinTheStoreTimeout(TestMongo mongo) {
        try (SilentProxy proxy = SilentProxy.start(mongo.uri());
             MongoClient appClient = MongoClients.create(MongoClientSettings.builder()
                     .applyConnectionString(new ConnectionString(proxy.uri())).build())) {
            assertTimeoutPreemptively(Duration.ofSeconds(40), () -> {
                List<LockEvent> events = new CopyOnWriteArrayList<>();
                MongoLockManager locks = MongoLockManager.builder().client(appClient).database(mongo.freshDatabase())
                        .storeTimeout(STORE_TIMEOUT).leaseTime(Duration.ofSeconds(2)).listener(events::add).build();
                LockSession held = locks.acquire("held");
                proxy.silence();

                long start = System.nanoTime();
                LockStoreException failed = org.junit.jupiter.api.Assertions.assertThrows(LockStoreException.class,
                        () -> locks.acquire("other", Duration.ofSeconds(1)));
                double tookS = (System.nanoTime() - start) / 1e9;
                System.out.printf("[silent server] acquire failed after %.2f s (store timeout %s): outcomeUnknown=%s%n",
                        tookS, STORE_TIMEOUT, failed.outcomeUnknown());
                assertTrue(tookS < STORE_TIMEOUT.toMillis() / 1000.0 * 2 + 0.5, "took " + tookS + " s");
                assertTrue(failed.outcomeUnknown(), "the request was sent: it may have been applied");

                // The renewer is bounded too: the lease goes unconfirmed and the loss is reported.
                long lostBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (held.isHeld() && System.nanoTime() < lostBy) {
                    Thread.sleep(50);
                }
                assertFalse(held.isHeld(), "the lease went unconfirmed");
                long reportedBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (events.stream().noneMatch(e -> e.kind() == LockEvent.Kind.LEASE_LOST) && System.nanoTime() < reportedBy) {
                    Thread.sleep(50);
                }
                assertTrue(events.stream().anyMatch(e -> e.kind() == LockEvent.Kind.LEASE_LOST), events.toString());

                long closing = System.nanoTime();
                locks.close();
                double closeS = (System.nanoTime() - closing) / 1e9;
                System.out.printf("[silent server] lease reported lost; close() returned after %.2f s%n", closeS);
                assertTrue(closeS < 10, "close took " + closeS + " s");
            });
        }
    }
}
