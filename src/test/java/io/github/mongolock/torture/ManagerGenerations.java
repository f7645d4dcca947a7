package io.github.mongolock.torture;

import static com.mongodb.client.model.Filters.gt;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import io.github.mongolock.LockManager;
import io.github.mongolock.MongoLockManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.bson.Document;

/**
 * The {@code SHUTDOWN} workload's lock managers: one current manager that the worker's threads use,
 * replaced every 1-2 s by a driver thread that builds the next one, publishes it, then closes the
 * previous one while threads are still inside its holds and waiting in its acquires.
 *
 * <p>Each manager gets an instance id of its own, {@code <process>~<generation>}, so its owners are
 * told apart from every other manager's by their prefix {@code <instance id>:}. Right after each
 * {@code close()} returns, the lock documents are read directly and every one still held
 * ({@code holds > 0}) by an owner of the closed manager is recorded with the close's start and end
 * ({@link HistoryWriter#managerClosed}); the checker counts them as held past close. Thread-safe.
 */
final class ManagerGenerations implements AutoCloseable {

    private static final int CHECK_ATTEMPTS = 5;

    private final String process;
    private final HistoryWriter history;
    private final MongoCollection<Document> lockDocuments;
    private final Function<String, MongoLockManager> build;
    private final AtomicReference<MongoLockManager> current = new AtomicReference<>();
    private final Set<String> retired = ConcurrentHashMap.newKeySet();
    private int generation;

    /**
     * @param lockDocuments the locks collection, read on a client of the worker's own (not a manager's)
     * @param build         builds a manager with the given instance id
     */
    ManagerGenerations(String process, HistoryWriter history, MongoCollection<Document> lockDocuments,
                       Function<String, MongoLockManager> build) {
        this.process = process;
        this.history = history;
        this.lockDocuments = lockDocuments;
        this.build = build;
        current.set(build.apply(nextInstanceId()));
    }

    /** The manager to use now; it may be closed at any moment, its callers then get a LockException saying so. */
    LockManager current() {
        return current.get();
    }

    /** Whether the manager that wrote {@code owner} has been closed (or is closing). */
    boolean retired(String owner) {
        int colon = owner.indexOf(':');
        return colon > 0 && retired.contains(owner.substring(0, colon));
    }

    /**
     * The driver thread's loop: replaces the manager every {@code minMillis}-{@code maxMillis} (random)
     * while {@code running} says so and {@code untilNanos} has not come.
     *
     * @return how many managers it closed
     */
    int replaceUntil(long untilNanos, long minMillis, long maxMillis, BooleanSupplier running) {
        int closed = 0;
        while (running.getAsBoolean()) {
            long next = System.nanoTime()
                    + TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextLong(minMillis, maxMillis + 1));
            if (next - untilNanos >= 0) {
                return closed;
            }
            // Short naps, so that a worker whose threads are done does not wait out a whole period.
            while (running.getAsBoolean() && next - System.nanoTime() > 0) {
                CriticalSection.pause(Math.min(50_000, Math.max((next - System.nanoTime()) / 1_000, 1)));
            }
            if (!running.getAsBoolean()) {
                return closed;
            }
            replace();
            closed++;
        }
        return closed;
    }

    /** Builds and publishes the next manager, then closes the previous one and checks what it left held. */
    void replace() {
        MongoLockManager next = build.apply(nextInstanceId());
        MongoLockManager previous = current.getAndSet(next);
        closeAndCheck(previous);
    }

    /** Closes the current manager (the last one) and checks it like the others. */
    @Override
    public void close() {
        closeAndCheck(current.get());
    }

    private synchronized String nextInstanceId() {
        return process + "~" + generation++;
    }

    private void closeAndCheck(MongoLockManager manager) {
        String instanceId = manager.instanceId();
        retired.add(instanceId);
        long closeStart = System.nanoTime();
        try {
            manager.close();
        } catch (RuntimeException failed) {
            // close() promises to throw nothing; what it did leave held is counted below all the same.
            history.foreignException("MongoLockManager.close", failed);
        }
        long closeEnd = System.nanoTime();
        history.managerClosed(instanceId, closeStart, closeEnd, heldBy(instanceId));
    }

    /** {@code name=owner} of every lock document held by an owner of {@code instanceId}; {@code ?=<error>} if MongoDB could not be read. */
    private List<String> heldBy(String instanceId) {
        MongoException last = null;
        for (int attempt = 0; attempt < CHECK_ATTEMPTS; attempt++) {
            try {
                List<String> held = new ArrayList<>();
                for (Document lock : lockDocuments.find(gt("holds", 0))) {
                    String owner = lock.getString("owner");
                    if (owner != null && owner.startsWith(instanceId + ":")) {
                        held.add(lock.get("_id") + "=" + owner);
                    }
                }
                return held;
            } catch (MongoException failed) {
                last = failed;
                CriticalSection.pause(200_000);
            }
        }
        return List.of("?=" + last.getClass().getSimpleName());
    }
}
