package io.github.mongolock.examples.helidon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The application as packaged ({@code target/mongolock-helidon-example.jar}, libraries in {@code target/libs}, main class
 * {@code io.helidon.microprofile.cdi.Main}), started as its own process on the JDK 21+ the build found, configured by
 * environment variables over its microprofile-config.properties.
 */
class PackagedApplicationIT {

    private static final Pattern STARTED = Pattern.compile("Server started on http://[^:]+:(\\d+)");

    @AfterAll
    static void stopTheDatabase() {
        TestDatabase.stop();
    }

    /** A bad duration in the environment: the deployment stops with mongolock's message and the process exits. */
    @Test
    void aBadDurationStopsTheApplication() throws Exception {
        Path log = Path.of("target", "packaged-bad-duration.log");
        Process app = start(log, Map.of("MONGOLOCK_URI", "mongodb://127.0.0.1:1", "MONGOLOCK_LEASE_TIME", "banana"));
        try {
            assertTrue(app.waitFor(90, TimeUnit.SECONDS), "the application should have stopped; its output: " + tail(log));
            String output = Files.readString(log);
            assertNotEquals(0, app.exitValue(), output);
            assertTrue(output.contains("MONGOLOCK-CDI-001: mongolock.lease-time = \"banana\" is not an ISO-8601 duration"),
                    "mongolock's message: " + tail(log));
            assertFalse(output.contains("Server started"), "nothing was served");
        } finally {
            stop(app);
        }
    }

    /**
     * The packaged application against the test database: it serves on 127.0.0.1 only, its readiness check is UP, and
     * {@code MONGOLOCK_INSTANCE_ID} from the environment overrides the file's {@code helidon-example}.
     */
    @Test
    void thePackagedApplicationServes() throws Exception {
        Path log = Path.of("target", "packaged-serves.log");
        Process app = start(log, Map.of("MONGOLOCK_URI", TestDatabase.uri(), "MONGOLOCK_INSTANCE_ID", "packaged"));
        try {
            int port = awaitPort(app, log);
            assertEquals(List.of("127.0.0.1"), listeningAddresses(port), "bound to loopback only");
            Http.Answer ready = Http.get(port, "health/ready");
            assertEquals(200, ready.status(), ready.body());
            assertTrue(ready.body().replaceAll("\\s", "").contains("\"name\":\"mongolock\",\"status\":\"UP\""), ready.body());
            Http.Answer audit = Http.post(port, "api/ledger/audit");
            assertEquals(200, audit.status(), audit.body());
            assertTrue(audit.body().startsWith("packaged:"), "MONGOLOCK_INSTANCE_ID over the file's instance id: " + audit.body());
        } finally {
            stop(app);
        }
    }

    private static Process start(Path log, Map<String, String> environment) throws IOException {
        String java = System.getProperty("example.java", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String jar = System.getProperty("example.jar", "target/mongolock-helidon-example.jar");
        ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-jar", jar)
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        builder.environment().put("SERVER_PORT", "0");
        return builder.start();
    }

    private static int awaitPort(Process app, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            Matcher started = STARTED.matcher(Files.readString(log));
            if (started.find()) {
                return Integer.parseInt(started.group(1));
            }
            if (!app.isAlive()) {
                throw new AssertionError("the application stopped (exit " + app.exitValue() + "): " + tail(log));
            }
            Thread.sleep(200);
        }
        throw new AssertionError("not started within 90 s: " + tail(log));
    }

    /** The local addresses listening on {@code port}, from /proc/net/tcp and tcp6 (Linux). */
    private static List<String> listeningAddresses(int port) throws IOException {
        List<String> addresses = new ArrayList<>();
        String hexPort = String.format(":%04X", port);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path path = Path.of(table);
            if (!Files.isReadable(path)) {
                continue;
            }
            for (String line : Files.readAllLines(path)) {
                String[] fields = line.trim().split("\\s+");
                if (fields.length > 3 && fields[1].endsWith(hexPort) && "0A".equals(fields[3])) {
                    addresses.add(address(fields[1].substring(0, fields[1].indexOf(':'))));
                }
            }
        }
        return addresses;
    }

    /** 0100007F is 127.0.0.1; in tcp6, 0000000000000000FFFF00000100007F is ::ffff:127.0.0.1; anything else is shown raw. */
    private static String address(String hex) {
        if (hex.equals("0100007F") || hex.equals("0000000000000000FFFF00000100007F")) {
            return "127.0.0.1";
        }
        return hex;
    }

    private static void stop(Process app) throws InterruptedException {
        if (app.isAlive()) {
            app.destroy();
            if (!app.waitFor(20, TimeUnit.SECONDS)) {
                app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static String tail(Path log) {
        try {
            String output = Files.readString(log);
            return output.length() > 6000 ? output.substring(output.length() - 6000) : output;
        } catch (IOException unreadable) {
            return "(no output: " + unreadable + ")";
        }
    }
}
