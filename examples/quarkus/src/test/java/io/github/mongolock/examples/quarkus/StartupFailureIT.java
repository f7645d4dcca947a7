package io.github.mongolock.examples.quarkus;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
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
        Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar");
        assertTrue(Files.isRegularFile(jar), "packaged by quarkus:build: " + jar.toAbsolutePath());
        ProcessBuilder start = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toString()).redirectErrorStream(true);
        start.environment().put("MONGOLOCK_URI", "mongodb://127.0.0.1:9/never_contacted");
        start.environment().put("MONGOLOCK_LEASE_TIME", "thirty seconds");
        start.environment().put("QUARKUS_HTTP_PORT", "0");
        Process application = start.start();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> read(application.getInputStream()));
        try {
            assertTrue(application.waitFor(60, TimeUnit.SECONDS), "the application should have stopped by itself");
        } finally {
            application.destroyForcibly();
        }
        String log = output.get(10, TimeUnit.SECONDS);
        assertNotEquals(0, application.exitValue(), log);
        assertTrue(log.contains("MONGOLOCK-CDI-001: mongolock.lease-time = \"thirty seconds\" is not an ISO-8601 duration"), log);
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException broken) {
            return "(output unreadable: " + broken + ")";
        }
    }
}
