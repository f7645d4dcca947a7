package io.github.mongolock.examples.quarkus;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The packaged application (target/quarkus-app) started as it runs in production, with a bad duration given only
 * where it runs (an environment variable, which the build never saw): mongolock reads the configuration again at
 * startup, and the application stops with the same message before it serves anything.
 */
class StartupFailureIT {

    @Test
    void aBadDurationInTheEnvironmentStopsTheStartup() throws Exception {
        try (PackagedApplication application = new PackagedApplication(Map.of(
                "MONGOLOCK_URI", "mongodb://127.0.0.1:9/never_contacted", "MONGOLOCK_LEASE_TIME", "thirty seconds"))) {
            assertTrue(application.process().waitFor(60, TimeUnit.SECONDS), "the application should have stopped by itself");
            String log = application.outputWhenStopped();
            assertNotEquals(0, application.process().exitValue(), log);
            assertTrue(log.contains("MONGOLOCK-CDI-001: mongolock.lease-time = \"thirty seconds\" is not an ISO-8601 duration"), log);
        }
    }
}
