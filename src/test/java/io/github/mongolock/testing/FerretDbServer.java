package io.github.mongolock.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * FerretDB 1.24.2, a MongoDB-compatible server written by others (Go, SQLite backend), as a test
 * backend: built once by {@code src/test/scripts/build-ferretdb.sh} into a cache outside the repository,
 * started here on 127.0.0.1 on a port of its choosing with its data in a fresh directory under
 * {@code target/}. It stops when this handle is closed, when the test JVM exits, and after
 * {@link #MAX_LIFETIME} whatever happens (run under coreutils {@code timeout}), so a killed build
 * never leaves it running.
 */
public final class FerretDbServer implements AutoCloseable {

    public static final String VERSION = "v1.24.2";
    static final Duration MAX_LIFETIME = Duration.ofMinutes(30);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Path BUILD_SCRIPT = Path.of("src/test/scripts/build-ferretdb.sh");
    private static final Pattern LISTENING = Pattern.compile("Listening on TCP (127\\.0\\.0\\.1:\\d+)");

    private final Process process;
    private final Thread stopAtExit;
    private final String uri;
    private final Path log;

    private FerretDbServer(Process process, Thread stopAtExit, String uri, Path log) {
        this.process = process;
        this.stopAtExit = stopAtExit;
        this.uri = uri;
        this.log = log;
    }

    /**
     * Starts FerretDB from {@code MONGOLOCK_FERRETDB} (a binary's path) when set, else from the build
     * script's cache, building it first when it is not there (about 2 minutes cold, with Go and the Go
     * module proxy).
     */
    public static FerretDbServer start(Path workDir) {
        try {
            Files.createDirectories(workDir);
            Path data = Files.createTempDirectory(workDir, "ferretdb-");
            Path log = data.resolve("ferretdb.log");
            Process process = new ProcessBuilder(List.of("timeout", "--signal=KILL", MAX_LIFETIME.toSeconds() + "s",
                    binary().toString(), "--handler=sqlite", "--sqlite-url=file:" + data + "/", "--state-dir=" + data,
                    "--listen-addr=127.0.0.1:0", "--debug-addr=-", "--telemetry=disable", "--log-level=INFO",
                    "--log-format=text"))
                    .redirectErrorStream(true).start();
            Thread stopAtExit = new Thread(() -> kill(process), "ferretdb-stop");
            Runtime.getRuntime().addShutdownHook(stopAtExit);
            String address = awaitListening(process, log);
            return new FerretDbServer(process, stopAtExit, "mongodb://" + address, log);
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot start FerretDB in " + workDir, failed);
        }
    }

    private static Path binary() throws IOException {
        String given = System.getenv("MONGOLOCK_FERRETDB");
        if (given != null && !given.isBlank()) {
            return Path.of(given);
        }
        Process build = new ProcessBuilder("bash", BUILD_SCRIPT.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String path = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        try {
            if (!build.waitFor(15, TimeUnit.MINUTES) || build.exitValue() != 0 || path.isEmpty()) {
                build.destroyForcibly();
                throw new IllegalStateException(BUILD_SCRIPT + " could not build FerretDB " + VERSION
                        + " (its messages are above); it needs Go and the Go module proxy, or set MONGOLOCK_FERRETDB"
                        + " to a FerretDB " + VERSION + " binary");
            }
        } catch (InterruptedException interrupted) {
            build.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building FerretDB", interrupted);
        }
        return Path.of(path);
    }

    /** Copies the server's output to {@code log} and returns the address once it says it listens. */
    private static String awaitListening(Process process, Path log) throws IOException {
        CompletableFuture<String> listening = new CompletableFuture<>();
        Thread copier = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                 Writer file = Files.newBufferedWriter(log)) {
                for (String line; (line = out.readLine()) != null; ) {
                    file.write(line + "\n");
                    file.flush();
                    Matcher matcher = LISTENING.matcher(line);
                    if (matcher.find()) {
                        listening.complete(matcher.group(1));
                    }
                }
            } catch (IOException ignored) {
                // the server is gone; its exit is reported below
            }
            listening.completeExceptionally(new IllegalStateException("FerretDB exited with " + exitOf(process)
                    + " before listening; see " + log));
        }, "ferretdb-log");
        copier.setDaemon(true);
        copier.start();
        try {
            return listening.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException failed) {
            kill(process);
            throw (RuntimeException) failed.getCause();
        } catch (TimeoutException slow) {
            kill(process);
            throw new IllegalStateException("FerretDB did not listen within " + START_TIMEOUT.toSeconds() + " s; see " + log);
        } catch (InterruptedException interrupted) {
            kill(process);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting FerretDB", interrupted);
        }
    }

    /** The server, then its {@code timeout} wrapper: a SIGKILL of the wrapper alone would leave the server running. */
    private static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    private static String exitOf(Process process) {
        try {
            return process.waitFor(1, TimeUnit.SECONDS) ? "status " + process.exitValue() : "no status yet";
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return "an unknown status";
        }
    }

    /** A connection string to the server (no database in it). */
    public String uri() {
        return uri;
    }

    /** Where the server's own log goes. */
    public Path log() {
        return log;
    }

    @Override
    public void close() {
        process.destroy(); // SIGTERM: timeout passes it on to the server
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                kill(process);
            }
        } catch (InterruptedException interrupted) {
            kill(process);
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(stopAtExit);
        } catch (IllegalStateException exiting) {
            // the JVM is already exiting: the hook runs anyway
        }
    }
}
