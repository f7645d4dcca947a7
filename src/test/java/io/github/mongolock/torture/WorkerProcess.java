package io.github.mongolock.torture;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A running {@link TortureWorker} JVM and the signals the harness sends it: {@code kill -STOP},
 * {@code kill -CONT}, {@code kill -9}. {@link #close()} always leaves the process dead.
 */
final class WorkerProcess implements AutoCloseable {

    private static final List<String> JVM_OPTIONS = List.of("-Xmx96m", "-Xss512k", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1", "-Xshare:auto");

    private final WorkerSettings settings;
    private final Process process;
    private volatile long deathNanos;
    private volatile boolean killed;

    private WorkerProcess(WorkerSettings settings, Process process) {
        this.settings = settings;
        this.process = process;
    }

    static WorkerProcess start(WorkerSettings settings, Path consoleLog) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        // The torture's mutation of the semaphore (test code only), passed on from the harness's JVM.
        if (GrantWithoutUsed.chosen()) {
            command.add("-D" + GrantWithoutUsed.PROPERTY + "=" + GrantWithoutUsed.chosenName());
        }
        command.add("-cp");
        command.add(classPath());
        command.add(TortureWorker.class.getName());
        command.addAll(settings.toArgs());
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(consoleLog.toFile())).start();
            return new WorkerProcess(settings, process);
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot start worker " + settings.process(), failed);
        }
    }

    /** Surefire hands tests a manifest-only jar; the real class path is in its own property. */
    static String classPath() {
        String path = System.getProperty("surefire.test.class.path");
        if (path == null || path.isBlank()) {
            path = System.getProperty("java.class.path");
        }
        return String.join(File.pathSeparator, path.split(File.pathSeparator));
    }

    WorkerSettings settings() {
        return settings;
    }

    String name() {
        return settings.process();
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    void stop() {
        signal("-STOP");
    }

    void resume() {
        signal("-CONT");
    }

    /** {@code kill -9}; returns once the process is gone. */
    void kill() {
        killed = true;
        process.destroyForcibly();
        awaitDeath(10_000);
    }

    boolean wasKilled() {
        return killed;
    }

    /** @return whether it exited within the time */
    boolean awaitExit(long millis) {
        return awaitDeath(millis);
    }

    int exitCode() {
        return process.exitValue();
    }

    /** When the process was seen dead (nanoTime), or {@link Long#MAX_VALUE} while it lives. */
    long deathNanos() {
        return deathNanos == 0 ? Long.MAX_VALUE : deathNanos;
    }

    private boolean awaitDeath(long millis) {
        try {
            if (process.waitFor(millis, TimeUnit.MILLISECONDS)) {
                if (deathNanos == 0) {
                    deathNanos = System.nanoTime();
                }
                return true;
            }
            return false;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).inheritIO().start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed");
            }
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot run kill " + signal, failed);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending " + signal, interrupted);
        }
    }

    /** Kills the process whatever state it is in (a stopped process dies of SIGKILL too). */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            awaitDeath(10_000);
        }
    }
}
