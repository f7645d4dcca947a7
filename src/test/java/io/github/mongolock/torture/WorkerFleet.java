package io.github.mongolock.torture;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The worker processes of one scenario, one slot per worker; a killed worker is replaced in its
 * slot by a new generation. {@link #close()}, or a shutdown hook if the harness JVM ends first,
 * kills whatever still runs.
 */
final class WorkerFleet implements AutoCloseable {

    private final Path directory;
    private final WorkerSettings template;
    private final long[] clockOffsets;
    private final List<WorkerProcess> all = new ArrayList<>();
    private final WorkerProcess[] current;
    private final int[] generation;
    private final Thread shutdownHook;

    /** @param template settings of every worker; process, history and clock offset are set per slot */
    WorkerFleet(Path directory, WorkerSettings template, long[] clockOffsets) {
        this.directory = directory;
        this.template = template;
        this.clockOffsets = clockOffsets.clone();
        this.current = new WorkerProcess[clockOffsets.length];
        this.generation = new int[clockOffsets.length];
        // If the harness JVM itself is stopped (Ctrl-C, a build timeout), its workers go with it; a
        // worker stopped by SIGSTOP could not even run its own watchdog.
        this.shutdownHook = new Thread(this::killAll, "torture-fleet-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    synchronized void startAll() {
        for (int slot = 0; slot < current.length; slot++) {
            start(slot);
        }
    }

    synchronized WorkerProcess start(int slot) {
        String name = "w" + slot + "." + generation[slot]++;
        WorkerSettings settings = template.forProcess(name, directory.resolve(name + ".history"), clockOffsets[slot]);
        WorkerProcess process = WorkerProcess.start(settings, directory.resolve(name + ".console"));
        current[slot] = process;
        all.add(process);
        return process;
    }

    /**
     * Waits until every current worker has written its first record (it has a connection and has
     * tried a lock), so that faults meet real contention; JVM start-up takes seconds on a busy machine.
     *
     * @return whether all were ready before {@code deadlineNanos}
     */
    boolean awaitReady(long deadlineNanos) {
        while (deadlineNanos - System.nanoTime() > 0) {
            boolean ready = true;
            for (WorkerProcess process : currentProcesses()) {
                ready &= process.settings().history().toFile().length() > 0;
            }
            if (ready) {
                return true;
            }
            FaultInjector.sleepUntil(System.nanoTime() + 50_000_000L);
        }
        return false;
    }

    private synchronized List<WorkerProcess> currentProcesses() {
        return List.of(current);
    }

    /** Starts a new generation in the slot of {@code dead}. */
    synchronized void replace(WorkerProcess dead) {
        for (int slot = 0; slot < current.length; slot++) {
            if (current[slot] == dead) {
                start(slot);
                return;
            }
        }
    }

    /**
     * The live process whose manager writes owners starting with {@code owner}'s instance id: the
     * process's name, followed by {@code ~<generation>} where the worker rebuilds its manager.
     */
    synchronized Optional<WorkerProcess> owning(String owner) {
        String instanceId = owner.substring(0, owner.indexOf(':'));
        String process = instanceId.contains("~") ? instanceId.substring(0, instanceId.indexOf('~')) : instanceId;
        return all.stream().filter(p -> p.name().equals(process) && p.isAlive()).findFirst();
    }

    synchronized List<WorkerProcess> all() {
        return List.copyOf(all);
    }

    /** @return the processes that did not exit in time (they are killed) */
    List<WorkerProcess> awaitAll(long deadlineNanos) {
        List<WorkerProcess> hung = new ArrayList<>();
        for (WorkerProcess process : all()) {
            long left = Math.max((deadlineNanos - System.nanoTime()) / 1_000_000, 1);
            if (!process.awaitExit(left)) {
                hung.add(process);
                process.close();
            }
        }
        return hung;
    }

    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run: the workers are dead either way
        }
    }

    private synchronized void killAll() {
        for (WorkerProcess process : all) {
            process.close();
        }
    }
}
