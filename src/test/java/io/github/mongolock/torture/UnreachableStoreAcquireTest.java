package io.github.mongolock.torture;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockSession;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With MongoDB unreachable, {@code acquire} throws {@link LockStoreException} within the configured
 * store timeout. The outage scenario found it taking two: the attempt waited a full server-selection
 * timeout, then the clean-up of an attempt whose outcome was unknown ({@code store.abandon}) waited a
 * second one, although the first call had never reached a server. Fixed in the core (a failure that
 * never reached MongoDB is not cleaned up); this test keeps it fixed.
 */
@ExtendWith(MongoBackend.class)
class UnreachableStoreAcquireTest {

    private static final Duration STORE_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration SLACK = Duration.ofMillis(500);

    @Test
    void acquireFailsWithinTheStoreTimeoutWhenMongoIsDown(TestMongo mongo) {
        String[] hostPort = mongo.uri().substring("mongodb://".length()).split("[:/]");
        try (TcpProxy proxy = TcpProxy.start(hostPort[0], Integer.parseInt(hostPort[1]));
             MongoLockManager locks = MongoLockManager.builder()
                     .uri("mongodb://127.0.0.1:" + proxy.port() + "/?directConnection=true&heartbeatFrequencyMS=500")
                     .database(mongo.freshDatabase()).storeTimeout(STORE_TIMEOUT).build()) {
            try (LockSession warmUp = locks.acquire("warm-up")) {
                assertTrue(warmUp.isHeld());
            }
            proxy.refuse(true);
            for (int i = 0; i < 3; i++) {
                long start = System.nanoTime();
                assertThrows(LockStoreException.class, () -> locks.acquire("x", Duration.ofSeconds(5)));
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertTrue(took.compareTo(STORE_TIMEOUT.plus(SLACK)) <= 0, "acquire took " + took.toMillis()
                        + " ms to report MongoDB unreachable; the store timeout is " + STORE_TIMEOUT.toMillis() + " ms");
            }
        }
    }
}
