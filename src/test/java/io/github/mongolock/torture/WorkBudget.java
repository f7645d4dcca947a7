package io.github.mongolock.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Whether a workload's threads go on: before the worker's deadline, within its section budget, and not asked to stop
 * by the harness (its stop file next to the worker's history, {@link ManyLocksWorkload#requestStop}, looked for every
 * 50 ms at most). Thread-safe.
 */
final class WorkBudget {

    private static final long STOP_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final WorkerSettings settings;
    private final Path stopFile;
    private final AtomicInteger sections = new AtomicInteger();
    private volatile long stopCheckedAt = System.nanoTime();
    private volatile boolean stopRequested;

    WorkBudget(WorkerSettings settings) {
        this.settings = settings;
        this.stopFile = settings.history().resolveSibling(ManyLocksWorkload.STOP_FILE);
    }

    boolean running() {
        long now = System.nanoTime();
        if (!stopRequested && now - stopCheckedAt > STOP_CHECK_NANOS) {
            stopCheckedAt = now;
            stopRequested = Files.exists(stopFile);
        }
        return !stopRequested && sections.get() < settings.maxSections() && settings.deadlineNanos() - now > 0;
    }

    /** One more section (or hold) done, counted against the budget. */
    void sectionDone() {
        sections.incrementAndGet();
    }
}
