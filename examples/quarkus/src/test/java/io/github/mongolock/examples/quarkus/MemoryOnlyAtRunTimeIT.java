package io.github.mongolock.examples.quarkus;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The packaged application (built without {@code memory:}) given {@code mongolock.uri=memory:} only where it runs:
 * the build registered no {@code InMemoryLocks} bean, so the locks live in a store of the manager's own, and the
 * startup says that no test can reach its controls.
 */
class MemoryOnlyAtRunTimeIT {

    @Test
    void theStartupSaysTheBuildDidNotSeeIt() throws Exception {
        try (PackagedApplication application = new PackagedApplication(Map.of("MONGOLOCK_URI", "memory:"))) {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!application.output().contains("started in") && application.process().isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            String log = application.output();
            assertTrue(application.process().isAlive(), "the application runs on the in-memory store: " + log);
            assertTrue(log.contains("in memory (mongolock.uri=memory:, no MongoDB)"), log);
            assertTrue(log.contains("mongolock.uri is memory: now, but the build did not see it"), log);
            assertFalse(log.contains("MONGOLOCK-CDI"), log);
        }
    }
}
