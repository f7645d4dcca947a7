package io.github.mongolock.torture;

import io.github.mongolock.LockException;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockTimeoutException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The {@code MANY_HOLDS} workload: a worker holds a few hundred locks at once while another waits for
 * them. The worker slots come in pairs (0 and 1, 2 and 3, ...; an odd last slot joins the last pair), and
 * each pair has a batch of its own, {@code locks / pairs} names, which both of its workers take whole:
 * every name is wanted by two workers (and by a killed worker's replacement), and two pairs hold a batch
 * each at the same time. The batch's first name is its <em>gate</em>: a worker
 * first acquires the gate (its partner waits there), then the rest of
 * the batch on a small pool of threads, recording each section's start as its acquire returns; holds them
 * all for a third to two thirds of a lease; then finishes the sections (counter work, close) on the pool,
 * the gate last. Only the gate's holder ever waits for another name, and only for names a previous holder
 * is releasing (finishing never waits), so no deadlock; the next worker starts once the gate is free, when
 * the whole batch is. After a kill or a pause the waiter at the gate takes it once the victim's session has
 * stayed unrenewed for its lease, which ends the session, and then the rest at once. A wait that times out
 * is asked again at once, keeping what is held: a waiter's watch of a dead holder's lock goes on across
 * calls. Stops by itself at the deadline, the section budget, or once the harness asks it to (a file
 * {@value #STOP_FILE} next to its history: the scenario's rounds of faults are over), finishing what it holds.
 */
final class ManyLocksWorkload {

    /**
     * Threads acquiring and finishing the names after the gate. Two overlap a little of each call's latency;
     * more would not take the batch faster on a loaded 2-core machine (8 took as long per lock as 1), but
     * would slow every store call of the other pair, whose waiter's watch of its gate the rules time.
     */
    static final int POOL_THREADS = 2;

    /** The file by which the harness tells the workers of a scenario directory to stop. */
    static final String STOP_FILE = "stop";

    /** An acquired lock whose section has begun. */
    private record Held(LockSession session, long start) {
    }

    private final WorkerSettings settings;
    private final HistoryWriter history;
    private final LockManager locks;
    private final CriticalSection section;
    private final WorkBudget budget;

    ManyLocksWorkload(WorkerSettings settings, HistoryWriter history, LockManager locks, CriticalSection section) {
        this.settings = settings;
        this.history = history;
        this.locks = locks;
        this.section = section;
        this.budget = new WorkBudget(settings);
    }

    /** Tells the workers whose histories are in {@code directory} to stop, finishing what they hold. */
    static void requestStop(Path directory) {
        try {
            Files.writeString(directory.resolve(STOP_FILE), "stop\n");
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot tell the workers to stop", failed);
        }
    }

    /** How many pairs of worker slots there are, each with a batch of its own. */
    static int pairs(int workers) {
        return Math.max(1, workers / 2);
    }

    /** The names slot {@code slot} takes whole: its pair's share of the {@code locks} names, the gate first. */
    static List<String> batch(int slot, int workers, int locks) {
        int pair = Math.min(slot / 2, pairs(workers) - 1);
        int size = locks / pairs(workers);
        List<String> batch = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            batch.add(WorkerSettings.lockName(pair * size + i));
        }
        return batch;
    }

    void run() throws InterruptedException {
        List<String> batch = batch(settings.slot(), settings.workers(), settings.locks());
        warmUp(batch.get(0));
        // Both workers of a pair start at the gate: the one that waits would otherwise record nothing for seconds.
        history.up(System.nanoTime());
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long holdMinMicros = settings.leaseMs() * 1_000 / 3;
        long holdMaxMicros = settings.leaseMs() * 1_000 * 2 / 3;
        ExecutorService pool = Executors.newFixedThreadPool(POOL_THREADS, task -> {
            Thread thread = new Thread(task, settings.process() + "-pool");
            thread.setDaemon(true);
            return thread;
        });
        try {
            while (budget.running()) {
                Held gate = acquire(batch.get(0));
                if (gate == null) {
                    break;
                }
                List<Future<Held>> acquiring = new ArrayList<>();
                for (String name : batch.subList(1, batch.size())) {
                    acquiring.add(pool.submit(() -> acquire(name)));
                }
                List<Held> held = new ArrayList<>();
                for (Future<Held> one : acquiring) {
                    Held got = await(one);
                    if (got != null) {
                        held.add(got); // null: the worker is stopping
                    }
                }
                if (held.size() == batch.size() - 1) {
                    CriticalSection.pause(random.nextLong(holdMinMicros, holdMaxMicros + 1));
                }
                List<Future<Held>> finishing = new ArrayList<>();
                for (Held one : held) {
                    finishing.add(pool.submit(() -> finish(one)));
                }
                for (Future<Held> one : finishing) {
                    await(one);
                }
                finish(gate); // last: the next worker starts once the whole batch is free
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private Held finish(Held one) {
        section.finish(one.session(), one.start());
        budget.sectionDone();
        return one;
    }

    private static Held await(Future<Held> task) throws InterruptedException {
        try {
            return task.get();
        } catch (ExecutionException failed) {
            throw new IllegalStateException("a pool task of the MANY_HOLDS workload failed", failed.getCause());
        }
    }

    /** Acquires {@code lock}, asking again after every timeout while the worker runs; null once it stops. */
    private Held acquire(String lock) {
        Duration wait = Duration.ofMillis(settings.waitMs());
        while (budget.running()) {
            long askedAt = System.nanoTime();
            try {
                LockSession session = locks.acquire(lock, wait);
                return new Held(session, section.begin(session, askedAt));
            } catch (LockException failed) {
                history.acquireFailed(lock, AcquireFailure.kindOf(failed, "TIMEOUT"), askedAt, System.nanoTime());
                if (!(failed instanceof LockTimeoutException)) {
                    CriticalSection.pause(20_000);
                }
            } catch (RuntimeException foreign) {
                history.foreignException("acquire", foreign);
                CriticalSection.pause(20_000);
            }
        }
        return null;
    }

    /** One store round trip before the first acquire, as {@link TortureWorker} does: a waiter must see a lock as soon as it asks. */
    private void warmUp(String lock) {
        try {
            locks.inspect(lock);
        } catch (LockException storeDown) {
            // the first acquire finds out for itself
        }
    }
}
