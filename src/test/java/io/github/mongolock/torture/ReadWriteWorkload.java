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
import io.github.mongolock.ReadWriteHold;
import io.github.mongolock.ReadWriteLock;
import io.github.mongolock.core.ReadWriteStore;
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
 * The {@code READ_WRITE} workload (read-write locks, issue 32 part 3): {@code threads} threads of one lock manager
 * loop over {@code locks} read-write locks ({@link #name}), each round taking read access of a random one, or write
 * access in one round of {@value #WRITE_ONE_IN}, working inside, and closing the hold. A writer does the fenced
 * counter's read-modify-write of the lock's counter document with its grant's token; a reader only reads the
 * counter (a plain read). Each hold is recorded as a hold of permits (the design's own mapping, a read 1 permit, a
 * write {@link ReadWriteStore#WHOLE} of a limit of {@code WHOLE}): its start before its work ({@code P}), its work's
 * end ({@code Q}) before {@code close()} with {@code isHeld()} then, how {@code close()} went ({@code F}), whether its
 * {@code onLeaseLost} ran ({@code L}). A failed acquire is recorded with its mode ({@code TIMEOUT} for a read,
 * {@value #WRITE_TIMEOUT} for a write). The worker stops at its deadline, a bound, or the harness's stop file.
 */
final class ReadWriteWorkload {

    /** One round in this many takes write access; the others read access. */
    static final int WRITE_ONE_IN = 5;
    /** The kind of a write acquire that timed out (a read's is {@code TIMEOUT}). */
    static final String WRITE_TIMEOUT = "TIMEOUT_WRITE";
    /** A worker whose hold was found not held waits this long for its {@code onLeaseLost} before it closes. */
    private static final long LISTENER_WAIT_MS = 500;

    private final WorkerSettings settings;
    private final HistoryWriter history;
    private final LockManager manager;
    private final FencedCollection<Document> counters;
    private final MongoCollection<Document> plainCounters;
    private final AtomicInteger sections = new AtomicInteger();
    private static final long STOP_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** The harness's stop file ({@link ManyLocksWorkload#requestStop}): the scenario ends once its faults are done. */
    private final Path stopFile;
    private volatile long stopCheckedAt = System.nanoTime();
    private volatile boolean stopRequested;

    ReadWriteWorkload(WorkerSettings settings, HistoryWriter history, LockManager manager, MongoCollection<Document> counters) {
        this.settings = settings;
        this.history = history;
        this.manager = manager;
        this.counters = FencedCollection.of(counters, CriticalSection.FENCE);
        this.plainCounters = counters;
        this.stopFile = settings.history().resolveSibling(ManyLocksWorkload.STOP_FILE);
    }

    /** The name of read-write lock {@code index}: its own namespace (a lock or semaphore of that name is another thing). */
    static String name(int index) {
        return "rw-" + index;
    }

    /** Whether a recorded hold (read 1 permit, write {@link ReadWriteStore#WHOLE}) was a write. */
    static boolean isWrite(PermitSection hold) {
        return hold.permits() == ReadWriteStore.WHOLE;
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
            String name = name(random.nextInt(settings.locks()));
            boolean write = random.nextInt(WRITE_ONE_IN) == 0;
            long askedAt = System.nanoTime();
            ReadWriteHold hold;
            try {
                ReadWriteLock lock = manager.readWriteLock(name);
                // One attempt first, as PermitsWorkload does: the history says when a call was told busy.
                Optional<ReadWriteHold> free = write ? lock.tryWrite(PermitsWorkload.NO_WAIT) : lock.tryRead(PermitsWorkload.NO_WAIT);
                if (free.isPresent()) {
                    hold = free.get();
                } else {
                    history.acquireFailed(name, AcquireFailure.BUSY, askedAt, System.nanoTime());
                    hold = write ? lock.write(options) : lock.read(options);
                }
            } catch (LockTimeoutException busy) {
                history.acquireFailed(name, write ? WRITE_TIMEOUT : "TIMEOUT", askedAt, System.nanoTime());
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
                history.foreignException("acquire read-write", foreign);
                CriticalSection.pause(20_000);
                continue;
            }
            hold(hold, askedAt, random);
            sections.incrementAndGet();
        }
    }

    private void hold(ReadWriteHold hold, long askedAt, ThreadLocalRandom random) {
        String name = hold.name();
        long token = hold.fencingToken();
        String owner = hold.owner();
        boolean write = hold.mode() == ReadWriteHold.Mode.WRITE;
        long start = System.nanoTime();
        history.permitsStarted(name, ReadWriteStore.WHOLE, write ? ReadWriteStore.WHOLE : 1, token, owner, start, askedAt);
        AtomicBoolean lost = new AtomicBoolean();
        hold.onLeaseLost(() -> {
            lost.set(true);
            history.leaseLost(name, token, owner, System.nanoTime());
        });
        SectionRecord.WriteOutcome outcome;
        try {
            if (write) {
                Document before;
                try {
                    before = counters.findOneAndUpdate(token, eq("_id", name), new Document());
                } catch (FencedWriteRejectedException laterTokenRead) {
                    before = null;
                }
                CriticalSection.pause(random.nextInt(settings.workMinMicros(), settings.workMaxMicros() + 1));
                if (before == null) {
                    outcome = SectionRecord.WriteOutcome.STALE_READ;
                } else if (!isHeld(hold)) {
                    outcome = SectionRecord.WriteOutcome.SKIPPED;
                } else {
                    outcome = fencedWrite(name, token, before.getLong("value") + 1);
                }
            } else {
                plainCounters.find(eq("_id", name)).first();
                CriticalSection.pause(random.nextInt(settings.workMinMicros(), settings.workMaxMicros() + 1));
                outcome = SectionRecord.WriteOutcome.NONE;
            }
        } catch (MongoException failed) {
            outcome = SectionRecord.WriteOutcome.FAILED;
        }
        long end = System.nanoTime();
        boolean heldAtEnd = isHeld(hold);
        history.permitsWorkDone(name, token, end, outcome, heldAtEnd);
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
            history.foreignException("close read-write", foreign);
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

    private boolean isHeld(ReadWriteHold hold) {
        try {
            return hold.isHeld();
        } catch (RuntimeException foreign) {
            history.foreignException("isHeld read-write", foreign);
            return false;
        }
    }
}
