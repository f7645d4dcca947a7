package io.github.mongolock.testing;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The MongoDB stand-in in a JVM of its own whose wall clock the test steps, through libfaketime
 * (Debian package {@code faketime}, installed by {@code .ci/run}): {@code $currentDate} and
 * {@code $$NOW} follow an offset written to a file at once (measured: within 35 ms). The monotonic clock is
 * left alone (the JVM needs it), and so are the JVM's timed waits ({@code FAKETIME_FORCE_MONOTONIC_FIX=0}). Binds 127.0.0.1 only; the child exits when this handle is closed,
 * when the test JVM dies (its standard input closes), or after {@link #MAX_LIFETIME} whatever happens.
 */
public final class SteppedClockStandIn implements AutoCloseable {

    public static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1");
    /**
     * The database's clock follows a new offset within this: libfaketime rereads the file on every clock
     * call ({@code FAKETIME_NO_CACHE=1}); measured here within 35 ms, the rest is margin for a loaded machine.
     */
    public static final Duration FOLLOWS_WITHIN = Duration.ofMillis(300);
    static final Duration MAX_LIFETIME = Duration.ofMinutes(15);

    private final Process process;
    private final Path offsetFile;
    private final String uri;

    private SteppedClockStandIn(Process process, Path offsetFile, String uri) {
        this.process = process;
        this.offsetFile = offsetFile;
        this.uri = uri;
    }

    /** Whether libfaketime is installed here; tests that need it fail with {@link #missingMessage()} when it is not. */
    public static boolean available() {
        return Files.isReadable(LIBFAKETIME);
    }

    /** Why a test that steps the database's clock cannot run here, and how to fix it. */
    public static String missingMessage() {
        return LIBFAKETIME + " is missing: install the Debian package faketime (apt-get install -y faketime;"
                + " .ci/run does it). Stepping the database's clock needs it; the test fails rather than skip.";
    }

    public static SteppedClockStandIn start(Path workDir) throws IOException {
        if (!available()) {
            throw new IllegalStateException(missingMessage());
        }
        Files.createDirectories(workDir);
        Path offsetFile = workDir.resolve("faketime-offset");
        Files.writeString(offsetFile, "+0s\n");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx192m");
        // As the torture workers: a JVM that lives for seconds to minutes on a shared 2-core machine
        // spends less on compiling and collecting this way.
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        String classPath = System.getProperty("surefire.test.class.path");
        command.add(classPath != null && !classPath.isBlank() ? classPath : System.getProperty("java.class.path"));
        command.add(SteppedClockStandIn.class.getName());
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(workDir.resolve("stand-in.log").toFile()));
        builder.environment().put("LD_PRELOAD", LIBFAKETIME.toString());
        builder.environment().put("FAKETIME_TIMESTAMP_FILE", offsetFile.toString());
        // Reread on every clock call: with FAKETIME_CACHE_DURATION=1 the stand-in followed a new offset
        // only after 0.3 to 1.8 s (libfaketime 0.9.10 reloads about every 2 s), so a step written less
        // than 2 s after the one before could be skipped altogether. Rereading costs nothing measurable
        // here once FAKETIME_FORCE_MONOTONIC_FIX=0 is set (about 2,500 requests a second either way).
        builder.environment().put("FAKETIME_NO_CACHE", "1");
        builder.environment().put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
        // Without it libfaketime 0.9.10 (Debian's) times the JVM's pthread_cond_timedwait on the monotonic
        // clock against the faked real-time clock: every timed wait (Thread.sleep, parkNanos, the JVM's own
        // housekeeping threads) returns at once, a dozen threads spin, and the stand-in answered about 10
        // requests a second here instead of about 1,000 (libfaketime issues 425 and 503). With it, timed
        // waits last what they should at every offset (checked at +0 s, -30 s, +9 s).
        builder.environment().put("FAKETIME_FORCE_MONOTONIC_FIX", "0");
        Process process = builder.start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (line == null || !line.startsWith("port ")) {
            process.destroyForcibly();
            throw new IllegalStateException("the stepped-clock stand-in did not start; see " + workDir.resolve("stand-in.log"));
        }
        String uri = "mongodb://127.0.0.1:" + line.substring(5).trim();
        System.out.println("[mongolock tests] MongoDB backend: stand-in under libfaketime (stepped wall clock) at " + uri);
        return new SteppedClockStandIn(process, offsetFile, uri);
    }

    public String uri() {
        return uri;
    }

    /**
     * Writes a new offset of the stand-in's wall clock from real time and returns at once: the clock
     * follows within {@link #FOLLOWS_WITHIN}. Fractions of a second are kept (libfaketime reads
     * {@code "+4.5s"}).
     */
    public void setOffset(Duration offset) throws IOException {
        Files.writeString(offsetFile, offsetText(offset) + "\n");
    }

    /** libfaketime's spelling of an offset: {@code "+4.500s"}, {@code "-30.000s"}. */
    static String offsetText(Duration offset) {
        long millis = offset.toMillis();
        return (millis < 0 ? "-" : "+") + Math.abs(millis) / 1000 + "." + String.format("%03d", Math.abs(millis) % 1000) + "s";
    }

    /**
     * Moves the stand-in's wall clock to {@code offset} from real time (e.g. {@code "+6s"},
     * {@code "-60s"}, {@code "+0s"}), then waits {@link #FOLLOWS_WITHIN}, by when the clock surely follows.
     */
    public void stepClock(String offset) throws IOException, InterruptedException {
        Files.writeString(offsetFile, offset + "\n");
        Thread.sleep(FOLLOWS_WITHIN.toMillis());
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException interrupted) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** The child: serves until its standard input closes (the test JVM ended) or its lifetime is over. */
    public static void main(String[] args) throws IOException {
        MongoServer server = new MongoServer(new MemoryBackend());
        server.enableOplog();
        server.bind("127.0.0.1", 0);
        InetSocketAddress address = server.getLocalAddress();
        System.out.println("port " + address.getPort());
        System.out.flush();
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(MAX_LIFETIME.toMillis());
            } catch (InterruptedException ignored) {
                // exit anyway
            }
            Runtime.getRuntime().halt(3);
        }, "stand-in-lifetime");
        watchdog.setDaemon(true);
        watchdog.start();
        while (System.in.read() >= 0) {
            // nothing to read: EOF means the parent is gone
        }
        server.shutdownNow();
        System.exit(0);
    }
}
