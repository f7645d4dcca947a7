package io.github.mongolock.benchmark;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A JVM forked with the benchmark's own classpath, driven by lines on its standard input and
 * answering by lines on its standard output. Every child ends when its input ends (its main loop
 * reads until EOF), so a benchmark that dies takes its children with it; {@link #close()} and a
 * shutdown hook also destroy any child still alive.
 */
final class ChildJvm implements AutoCloseable {

    private static final Set<ChildJvm> ALIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ALIVE.forEach(ChildJvm::destroy), "bench-children-reaper"));
    }

    private final String label;
    private final Process process;
    private final PrintWriter input;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ChildJvm(String label, Process process) {
        this.label = label;
        this.process = process;
        this.input = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread reader = new Thread(this::pump, "bench-read-" + label);
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code mainClass} in a new JVM; its standard error goes to the benchmark's. */
    static ChildJvm start(String label, List<String> jvmOptions, Class<?> mainClass, String... args) {
        return start(label, jvmOptions, System.getProperty("java.class.path"), mainClass, args);
    }

    /** As {@link #start(String, List, Class, String...)}, on another classpath (e.g. another build of the library). */
    static ChildJvm start(String label, List<String> jvmOptions, String classpath, Class<?> mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            ChildJvm child = new ChildJvm(label, process);
            ALIVE.add(child);
            return child;
        } catch (IOException failed) {
            throw new IllegalStateException("Could not start " + label + ": " + failed.getMessage(), failed);
        }
    }

    private void pump() {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                lines.add(line);
            }
        } catch (IOException ended) {
            // The child is gone; expect() reports it.
        }
    }

    /** The process ids of this JVM and of every child still alive (for {@link CpuAccount}). */
    static List<Long> benchmarkPids() {
        List<Long> pids = new ArrayList<>();
        pids.add(ProcessHandle.current().pid());
        ALIVE.forEach(child -> pids.add(child.process.pid()));
        return pids;
    }

    void send(String line) {
        input.println(line);
    }

    /** The next line starting with {@code prefix}; other lines are echoed. Fails on ERROR, exit or timeout. */
    String expect(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            String line;
            try {
                line = lines.poll(Math.max(left, 0), TimeUnit.NANOSECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for " + label);
            }
            if (line == null) {
                throw new IllegalStateException(label + (process.isAlive() ? " did not answer " + prefix + " within "
                        + timeout : " exited with code " + process.exitValue() + " before answering " + prefix));
            }
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
            if (line.startsWith(Protocol.ERROR)) {
                throw new IllegalStateException(label + " failed: " + line);
            }
            System.out.println("  [" + label + "] " + line);
        }
    }

    /** {@code kill -9}: the child gets no chance to release anything; returns once it is gone. */
    void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(label + " still alive 30 s after SIGKILL");
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while killing " + label);
        }
        ALIVE.remove(this);
    }

    private void destroy() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }

    /** Ends the child's input, gives it a few seconds to exit, then kills it. */
    @Override
    public void close() {
        input.close();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        } finally {
            ALIVE.remove(this);
        }
    }
}
