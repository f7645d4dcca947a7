package io.github.mongolock.examples.quarkus;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The application packaged by quarkus:build (target/quarkus-app), started as it runs in production, with settings
 * given only where it runs (environment variables, which the build never saw). Its output, standard error
 * included, is collected as it comes. Not thread-safe: one per test.
 */
final class PackagedApplication implements AutoCloseable {

    private final Process process;
    private final StringBuffer output = new StringBuffer();
    private final Thread reader;

    PackagedApplication(Map<String, String> environment) throws IOException {
        Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar");
        assertTrue(Files.isRegularFile(jar), "packaged by quarkus:build: " + jar.toAbsolutePath());
        ProcessBuilder start = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toString()).redirectErrorStream(true);
        start.environment().put("QUARKUS_HTTP_PORT", "0");
        start.environment().putAll(environment);
        process = start.start();
        reader = new Thread(() -> read(process.getInputStream()), "packaged-application-output");
        reader.start();
    }

    Process process() {
        return process;
    }

    /** What it printed so far. */
    String output() {
        return output.toString();
    }

    /** Everything it printed, once it has stopped (waits for the last of its output). */
    String outputWhenStopped() throws InterruptedException {
        reader.join(10_000);
        return output();
    }

    private void read(InputStream in) {
        byte[] buffer = new byte[8192];
        try (in) {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                output.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
            }
        } catch (IOException broken) {
            output.append("(output unreadable: ").append(broken).append(')');
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
