package io.github.mongolock.it;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An application server in a child process, on 127.0.0.1, whose output goes to a log file. Knows
 * how to wait for the application to answer and how to stop (SIGTERM, then SIGKILL).
 */
abstract class ServerProcess implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    final String name;
    final int httpPort;
    final Path workDir;
    private Process process;
    private long startedAt;
    private double startSeconds = -1;

    ServerProcess(String name, Path workDir) throws IOException {
        this.name = name;
        this.workDir = Files.createDirectories(workDir);
        this.httpPort = freePort();
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    String baseUrl() {
        return "http://127.0.0.1:" + httpPort;
    }

    Path consoleLog() {
        return workDir.resolve(name + "-console.log");
    }

    /** The command line and the files it needs, prepared under {@link #workDir}. */
    abstract List<String> command() throws IOException;

    /** Log files worth reading when something goes wrong, newest content last. */
    abstract List<Path> logs();

    void start(Map<String, String> environment) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command()).directory(workDir.toFile())
                .redirectErrorStream(true).redirectOutput(consoleLog().toFile());
        builder.environment().putAll(environment);
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        startedAt = System.nanoTime();
        process = builder.start();
        Runtime.getRuntime().addShutdownHook(new Thread(this::kill));
    }

    /** Waits until {@code path} answers 200; returns false if the process died or the time ran out. */
    boolean awaitHttp(String path, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                return false;
            }
            try {
                HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl() + path))
                        .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    if (startSeconds < 0) {
                        startSeconds = (System.nanoTime() - startedAt) / 1e9;
                    }
                    return true;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        return false;
    }

    /** Seconds from process start to the application's first 200, or -1. */
    double startSeconds() {
        return startSeconds;
    }

    /** Everything the server logged so far. */
    String logText() {
        StringBuilder text = new StringBuilder();
        for (Path log : logs()) {
            try {
                if (Files.exists(log)) {
                    text.append("==== ").append(log).append('\n').append(Files.readString(log, StandardCharsets.UTF_8));
                }
            } catch (IOException unreadable) {
                text.append("(cannot read ").append(log).append(": ").append(unreadable).append(")\n");
            }
        }
        return text.toString();
    }

    /** The last {@code lines} lines of the logs, for failure messages. */
    String logTail(int lines) {
        String[] all = logText().split("\n");
        return String.join("\n", java.util.Arrays.copyOfRange(all, Math.max(0, all.length - lines), all.length));
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    private void kill() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
        }
    }

    /** SIGTERM, up to 30 s for a clean stop, then SIGKILL. */
    @Override
    public void close() throws InterruptedException {
        if (process == null) {
            return;
        }
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
