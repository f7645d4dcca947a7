package io.github.mongolock.torture;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.set;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import io.github.mongolock.FencedWriteRejectedException;
import io.github.mongolock.LockException;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.PermitHold;
import io.github.mongolock.Permits;
import io.github.mongolock.mongo.FencedCollection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;

/**
 * The {@code PERMITS} workload (issue 32): {@code threads} threads of one lock manager loop over {@code locks}
 * semaphores ({@link #name}, limit {@link #limit}: 2, 3, ...), each round acquiring 1 permit, or 2 in one round of
 * {@value #TWO_PERMITS_ONE_IN}, of a random one, working inside, and giving them back. The work is the fenced
 * counter's read-modify-write of the semaphore's counter document, fenced with the grant's token (holders of one
 * semaphore run at the same time, and the fence orders their writes: a lower token that comes late is refused, so
 * the counter loses nothing), then {@code isHeld()}, then {@code close()}. Each hold is recorded: its start
 * before its work ({@code P}), its work's end ({@code Q}) before {@code close()}, and how {@code close()} went
 * ({@code F}); {@code onLeaseLost} is registered on every hold and recorded ({@code L}). The worker stops at its
 * deadline, a bound, or when the harness writes the stop file once the scenario's faults are done.
 */
final class PermitsWorkload {

    /** One round in this many takes 2 permits at once; the others take 1. */
    static final int TWO_PERMITS_ONE_IN = 4;
    /** A worker whose hold was found not held waits this long for its {@code onLeaseLost} before it closes. */
    private static final long LISTENER_WAIT_MS = 500;

    private final WorkerSettings settings;
    private final HistoryWriter history;
    private final LockManager manager;
    private final FencedCollection<Document> counters;
    private final AtomicInteger sections = new AtomicInteger();
    /** The first attempt of a call: told busy at once rather than waiting. */
    static final LockOptions NO_WAIT = LockOptions.defaults().waitTime(Duration.ZERO);
    private static final long STOP_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** The harness's stop file ({@link ManyLocksWorkload#requestStop}): the scenario ends once its faults are done. */
    private final Path stopFile;
    private volatile long stopCheckedAt = System.nanoTime();
    private volatile boolean stopRequested;

    PermitsWorkload(WorkerSettings settings, HistoryWriter history, LockManager manager, MongoCollection<Document> counters) {
        this.settings = settings;
        this.history = history;
        this.manager = manager;
        this.counters = FencedCollection.of(counters, CriticalSection.FENCE);
        this.stopFile = settings.history().resolveSibling(ManyLocksWorkload.STOP_FILE);
    }

    /** The name of semaphore {@code index}: its own namespace (a lock of that name would be another thing). */
    static String name(int index) {
        return "sem-" + index;
    }

    /** The limit of semaphore {@code index}: 2 for the first, 3 for the second, and so on. */
    static int limit(int index) {
        return 2 + index;
    }

    /** The limit of the semaphore named {@code name}. */
    static int limitOf(String name) {
        return limit(Integer.parseInt(name.substring(name.indexOf('-') + 1)));
    }

    void run() throws InterruptedException {
        try {
            manager.inspect(WorkerSettings.lockName(0)); // one round trip first: a cold JVM's first call is slow
        } catch (LockException storeDown) {
            // the threads find out for themselves
        }
        history.up(System.nanoTime());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < settings.threads(); i++) {
            Thread thread = new Thread(this::loop, settings.process() + "-p" + i);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    /** Before the deadline, within the budget, and not asked to stop by the harness (its stop file, looked for every 50 ms at most). */
    private boolean running() {
        long now = System.nanoTime();
        if (!stopRequested && now - stopCheckedAt > STOP_CHECK_NANOS) {
            stopCheckedAt = now;
            stopRequested = Files.exists(stopFile);
        }
        return !stopRequested && sections.get() < settings.maxSections() && settings.deadlineNanos() - now > 0;
    }

    private void loop() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        LockOptions options = LockOptions.defaults().waitTime(Duration.ofMillis(settings.waitMs()));
        while (running()) {
            int index = random.nextInt(settings.locks());
            String name = name(index);
            int limit = limit(index);
            int permits = random.nextInt(TWO_PERMITS_ONE_IN) == 0 ? 2 : 1;
            long askedAt = System.nanoTime();
            PermitHold hold;
            try {
                Permits semaphore = manager.permits(name, limit);
                // One attempt first, so that the history says when a call was told busy: the regrant is counted from
                // the first waiter that was, not from a caller given a free permit at once (PermitsChecker).
                Optional<PermitHold> free = semaphore.tryAcquire(permits, NO_WAIT);
                if (free.isPresent()) {
                    hold = free.get();
                } else {
                    history.acquireFailed(name, AcquireFailure.BUSY, askedAt, System.nanoTime());
                    hold = semaphore.acquire(permits, options);
                }
            } catch (LockTimeoutException busy) {
                history.acquireFailed(name, "TIMEOUT", askedAt, System.nanoTime());
                continue;
            } catch (LockStoreException storeDown) {
                history.acquireFailed(name, "STORE", askedAt, System.nanoTime());
                CriticalSection.pause(20_000);
                continue;
            } catch (LockException other) {
                history.acquireFailed(name, other.getClass().getSimpleName(), askedAt, System.nanoTime());
                CriticalSection.pause(20_000);
                continue;
            } catch (RuntimeException foreign) {
                history.foreignException("acquire permits", foreign);
                CriticalSection.pause(20_000);
                continue;
            }
            hold(hold, limit, askedAt, random);
            sections.incrementAndGet();
        }
    }

    private void hold(PermitHold hold, int limit, long askedAt, ThreadLocalRandom random) {
        String name = hold.name();
        long token = hold.fencingToken();
        String owner = hold.owner();
        long start = System.nanoTime();
        history.permitsStarted(name, limit, hold.permits(), token, owner, start, askedAt);
        AtomicBoolean lost = new AtomicBoolean();
        hold.onLeaseLost(() -> {
            lost.set(true);
            history.leaseLost(name, token, owner, System.nanoTime());
        });
        SectionRecord.WriteOutcome write;
        try {
            Document before;
            try {
                before = counters.findOneAndUpdate(token, eq("_id", name), new Document());
            } catch (FencedWriteRejectedException laterTokenRead) {
                before = null;
            }
            CriticalSection.pause(random.nextInt(settings.workMinMicros(), settings.workMaxMicros() + 1));
            if (before == null) {
                write = SectionRecord.WriteOutcome.STALE_READ;
            } else if (!isHeld(hold)) {
                write = SectionRecord.WriteOutcome.SKIPPED;
            } else {
                write = fencedWrite(name, token, before.getLong("value") + 1);
            }
        } catch (MongoException failed) {
            write = SectionRecord.WriteOutcome.FAILED;
        }
        long end = System.nanoTime();
        boolean heldAtEnd = isHeld(hold);
        history.permitsWorkDone(name, token, end, write, heldAtEnd);
        if (!heldAtEnd) {
            // Told by isHeld(): the onLeaseLost action, run on the notice thread, may be on its way (never after close).
            long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LISTENER_WAIT_MS);
            while (!lost.get() && giveUp - System.nanoTime() > 0) {
                CriticalSection.pause(5_000);
            }
        }
        SectionRecord.CloseOutcome close;
        try {
            hold.close();
            close = SectionRecord.CloseOutcome.OK;
        } catch (LockLostException gone) {
            close = SectionRecord.CloseOutcome.LOST;
        } catch (LockStoreException storeDown) {
            close = SectionRecord.CloseOutcome.STORE;
        } catch (LockException other) {
            close = SectionRecord.CloseOutcome.OTHER;
        } catch (RuntimeException foreign) {
            history.foreignException("close permits", foreign);
            close = SectionRecord.CloseOutcome.OTHER;
        }
        history.permitsEnded(name, token, close, lost.get());
    }

    private SectionRecord.WriteOutcome fencedWrite(String name, long token, long value) {
        try {
            long matched = counters.updateOne(token, eq("_id", name), combine(set("value", value), inc("writes", 1L)))
                    .getMatchedCount();
            return matched == 1 ? SectionRecord.WriteOutcome.ACCEPTED : SectionRecord.WriteOutcome.FAILED;
        } catch (FencedWriteRejectedException refused) {
            return SectionRecord.WriteOutcome.FENCED;
        }
    }

    private boolean isHeld(PermitHold hold) {
        try {
            return hold.isHeld();
        } catch (RuntimeException foreign) {
            history.foreignException("isHeld permits", foreign);
            return false;
        }
    }
}
