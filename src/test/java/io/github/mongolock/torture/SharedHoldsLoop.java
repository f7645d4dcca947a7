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
import io.github.mongolock.mongo.FencedCollection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.bson.Document;

/**
 * The loop {@link PermitsWorkload} and {@link ReadWriteWorkload} share: {@code threads} threads of one lock manager,
 * each round asking for what the workload picks ({@link Round}), once without waiting and then, told busy, waiting;
 * working inside; closing the hold. The work of a hold that {@linkplain Held#writes writes} is the fenced counter's
 * read-modify-write of the name's counter document with the grant's token; the others only read the counter. Every
 * step is recorded as a hold of permits: the moment a call was told busy ({@link AcquireFailure#BUSY}), the start
 * before the work ({@code P}), the work's end ({@code Q}) with {@code isHeld()} then, how {@code close()} went
 * ({@code F}), and whether {@code onLeaseLost} ran ({@code L}). The worker stops at its deadline, a bound, or when
 * the harness writes the stop file once the scenario's faults are done.
 */
final class SharedHoldsLoop {

    /** The first attempt of a call: told busy at once rather than waiting. */
    static final LockOptions NO_WAIT = LockOptions.defaults().waitTime(Duration.ZERO);
    /** A worker whose hold was found not held waits this long for its {@code onLeaseLost} before it closes. */
    private static final long LISTENER_WAIT_MS = 500;

    /**
     * One round of a thread, as the workload picks it.
     *
     * @param timeoutKind what a wait that ended without a hold is recorded as
     * @param tryOnce     one attempt, never waiting
     * @param await       the wait, up to the options' wait time
     */
    record Round(String name, String timeoutKind, Supplier<Optional<Held>> tryOnce, Function<LockOptions, Held> await) {
    }

    /**
     * A hold as the history records it: a semaphore's permits, or a read-write lock's access as permits of a limit of
     * {@code WHOLE}.
     *
     * @param writes whether its work is the fenced counter's read-modify-write (else a plain read of the counter)
     */
    record Held(String name, long token, String owner, int limit, int permits, boolean writes, BooleanSupplier isHeld,
                Consumer<Runnable> onLeaseLost, Runnable close) {
    }

    private final WorkerSettings settings;
    private final HistoryWriter history;
    private final LockManager manager;
    private final FencedCollection<Document> counters;
    private final MongoCollection<Document> plainCounters;
    /** "permits" or "read-write": in thread names and the foreign exceptions' labels. */
    private final String kind;
    private final Function<ThreadLocalRandom, Round> rounds;
    private final WorkBudget budget;

    SharedHoldsLoop(WorkerSettings settings, HistoryWriter history, LockManager manager, MongoCollection<Document> counters,
                    String kind, Function<ThreadLocalRandom, Round> rounds) {
        this.settings = settings;
        this.history = history;
        this.manager = manager;
        this.counters = FencedCollection.of(counters, CriticalSection.FENCE);
        this.plainCounters = counters;
        this.kind = kind;
        this.rounds = rounds;
        this.budget = new WorkBudget(settings);
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
            Thread thread = new Thread(this::loop, settings.process() + "-" + kind + "-" + i);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private void loop() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        LockOptions options = LockOptions.defaults().waitTime(Duration.ofMillis(settings.waitMs()));
        while (budget.running()) {
            Round round = rounds.apply(random);
            long askedAt = System.nanoTime();
            Held held;
            try {
                // One attempt first, so that the history says when a call was told busy: a permit's regrant is counted
                // from the first waiter that was, not from a caller given a free permit at once (PermitsChecker).
                Optional<Held> free = round.tryOnce().get();
                if (free.isPresent()) {
                    held = free.get();
                } else {
                    history.acquireFailed(round.name(), AcquireFailure.BUSY, askedAt, System.nanoTime());
                    held = round.await().apply(options);
                }
            } catch (LockException failed) {
                history.acquireFailed(round.name(), AcquireFailure.kindOf(failed, round.timeoutKind()), askedAt,
                        System.nanoTime());
                if (!(failed instanceof LockTimeoutException)) {
                    CriticalSection.pause(20_000);
                }
                continue;
            } catch (RuntimeException foreign) {
                history.foreignException("acquire " + kind, foreign);
                CriticalSection.pause(20_000);
                continue;
            }
            hold(held, askedAt, random);
            budget.sectionDone();
        }
    }

    private void hold(Held held, long askedAt, ThreadLocalRandom random) {
        String name = held.name();
        long token = held.token();
        long start = System.nanoTime();
        history.permitsStarted(name, held.limit(), held.permits(), token, held.owner(), start, askedAt);
        AtomicBoolean lost = new AtomicBoolean();
        held.onLeaseLost().accept(() -> {
            lost.set(true);
            history.leaseLost(name, token, held.owner(), System.nanoTime());
        });
        SectionRecord.WriteOutcome outcome;
        try {
            outcome = held.writes() ? fencedIncrement(held, random) : plainRead(name, random);
        } catch (MongoException failed) {
            outcome = SectionRecord.WriteOutcome.FAILED;
        }
        long end = System.nanoTime();
        boolean heldAtEnd = isHeld(held);
        history.permitsWorkDone(name, token, end, outcome, heldAtEnd);
        if (!heldAtEnd) {
            // Told by isHeld(): the onLeaseLost action, run on the notice thread, may be on its way (never after close).
            long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LISTENER_WAIT_MS);
            while (!lost.get() && giveUp - System.nanoTime() > 0) {
                CriticalSection.pause(5_000);
            }
        }
        history.permitsEnded(name, token, close(held), lost.get());
    }

    /** The fenced read-modify-write of the counter, skipped when the hold is found lost before the write. */
    private SectionRecord.WriteOutcome fencedIncrement(Held held, ThreadLocalRandom random) {
        Document before;
        try {
            before = counters.findOneAndUpdate(held.token(), eq("_id", held.name()), new Document());
        } catch (FencedWriteRejectedException laterTokenRead) {
            before = null;
        }
        CriticalSection.pause(random.nextInt(settings.workMinMicros(), settings.workMaxMicros() + 1));
        if (before == null) {
            return SectionRecord.WriteOutcome.STALE_READ;
        }
        if (!isHeld(held)) {
            return SectionRecord.WriteOutcome.SKIPPED;
        }
        try {
            long matched = counters.updateOne(held.token(), eq("_id", held.name()),
                    combine(set("value", before.getLong("value") + 1), inc("writes", 1L))).getMatchedCount();
            return matched == 1 ? SectionRecord.WriteOutcome.ACCEPTED : SectionRecord.WriteOutcome.FAILED;
        } catch (FencedWriteRejectedException refused) {
            return SectionRecord.WriteOutcome.FENCED;
        }
    }

    private SectionRecord.WriteOutcome plainRead(String name, ThreadLocalRandom random) {
        plainCounters.find(eq("_id", name)).first();
        CriticalSection.pause(random.nextInt(settings.workMinMicros(), settings.workMaxMicros() + 1));
        return SectionRecord.WriteOutcome.NONE;
    }

    private SectionRecord.CloseOutcome close(Held held) {
        try {
            held.close().run();
            return SectionRecord.CloseOutcome.OK;
        } catch (LockLostException gone) {
            return SectionRecord.CloseOutcome.LOST;
        } catch (LockStoreException storeDown) {
            return SectionRecord.CloseOutcome.STORE;
        } catch (LockException other) {
            return SectionRecord.CloseOutcome.OTHER;
        } catch (RuntimeException foreign) {
            history.foreignException("close " + kind, foreign);
            return SectionRecord.CloseOutcome.OTHER;
        }
    }

    private boolean isHeld(Held held) {
        try {
            return held.isHeld().getAsBoolean();
        } catch (RuntimeException foreign) {
            history.foreignException("isHeld " + kind, foreign);
            return false;
        }
    }
}
