package io.github.mongolock.torture;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.max;
import static com.mongodb.client.model.Updates.set;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import io.github.mongolock.LockEvent;
import io.github.mongolock.LockException;
import io.github.mongolock.LockListener;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.core.LockCoordinator;
import io.github.mongolock.core.MonotonicClock;
import io.github.mongolock.mongo.MongoLockStore;
import io.github.mongolock.mongo.MongoReleaseFeed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;

/**
 * One worker process of the torture test (its own JVM): {@code threads} threads share one lock
 * manager and loop acquire, critical section, release over {@code locks} lock names until the
 * deadline or {@code maxSections}, then exit by themselves.
 *
 * <p>The critical section does a non-atomic read-modify-write of the lock's counter document in
 * two flavours: a <em>fenced</em> one (the read raises the counter's {@code fence} to this token,
 * the write only lands while {@code fence} still equals this token, so a holder whose lease was
 * taken over cannot overwrite a later holder's work) and a <em>plain</em> one that trusts the lock
 * and {@code isHeld()} alone. Every section is recorded by {@link HistoryWriter}, its start before
 * the work begins.
 */
public final class TortureWorker {

    private static final FindOneAndUpdateOptions BEFORE =
            new FindOneAndUpdateOptions().returnDocument(ReturnDocument.BEFORE);

    private final WorkerSettings settings;
    private final HistoryWriter history;
    private final MongoCollection<Document> counters;
    private final LockManager locks;
    private final Set<String> lostTokens;
    private final AtomicInteger sections = new AtomicInteger();

    private TortureWorker(WorkerSettings settings, HistoryWriter history, MongoCollection<Document> counters,
                          LockManager locks, Set<String> lostTokens) {
        this.settings = settings;
        this.lostTokens = lostTokens;
        this.history = history;
        this.counters = counters;
        this.locks = locks;
    }

    public static void main(String[] args) throws InterruptedException {
        WorkerSettings settings = WorkerSettings.parse(args);
        exitAfterDeadline(settings);
        HistoryWriter history = new HistoryWriter(settings.history());
        Set<String> lostTokens = ConcurrentHashMap.newKeySet();
        LockListener listener = event -> {
            if (event.kind() == LockEvent.Kind.LEASE_LOST) {
                lostTokens.add(event.name() + "#" + event.fencingToken());
                history.leaseLost(event.name(), event.fencingToken(), event.owner(), System.nanoTime());
            }
        };
        Duration storeTimeout = Duration.ofMillis(settings.storeTimeoutMs());
        MongoClient counterClient = MongoClients.create(clientSettings(settings.uri(), storeTimeout));
        Runnable managerCloser;
        LockManager manager;
        MongoClient lockClient = null;
        if (settings.clockOffsetNanos() == 0) {
            MongoLockManager built = MongoLockManager.builder().uri(settings.uri()).database(settings.database())
                    .collection(WorkerSettings.LOCKS_COLLECTION).leaseTime(Duration.ofMillis(settings.leaseMs()))
                    .waitTime(Duration.ofMillis(settings.waitMs())).storeTimeout(storeTimeout)
                    .instanceId(settings.process()).listener(listener).build();
            manager = built;
            managerCloser = built::close;
        } else {
            // The skew scenario: the lock manager's only client clock runs far ahead of (or behind) the machine's.
            long offset = settings.clockOffsetNanos();
            MonotonicClock skewed = () -> System.nanoTime() + offset;
            lockClient = MongoClients.create(clientSettings(settings.uri(), storeTimeout));
            MongoLockStore store = new MongoLockStore(
                    lockClient.getDatabase(settings.database()).getCollection(WorkerSettings.LOCKS_COLLECTION));
            String ownerPrefix = settings.process() + ":" + UUID.randomUUID().toString().substring(0, 8);
            // Wired as MongoLockManager.Builder wires it, push wake-up included, but with the skewed clock.
            LockCoordinator coordinator = new LockCoordinator(store, ownerPrefix, Duration.ofMillis(settings.leaseMs()),
                    Duration.ofMillis(settings.waitMs()), skewed, List.of(listener),
                    new MongoReleaseFeed(store.collection(), "mongolock-release-feed-" + ownerPrefix));
            manager = coordinator;
            managerCloser = coordinator::close;
        }
        TortureWorker worker = new TortureWorker(settings, history,
                counterClient.getDatabase(settings.database()).getCollection(WorkerSettings.COUNTERS_COLLECTION),
                manager, lostTokens);
        try {
            worker.run();
        } finally {
            try {
                managerCloser.run();
            } catch (RuntimeException failed) {
                System.err.println("closing the lock manager failed: " + failed);
            }
            counterClient.close();
            if (lockClient != null) {
                lockClient.close();
            }
            history.close();
        }
        System.exit(0);
    }

    static MongoClientSettings clientSettings(String uri, Duration timeout) {
        int millis = (int) timeout.toMillis();
        return MongoClientSettings.builder().applyConnectionString(new ConnectionString(uri))
                .applyToClusterSettings(cluster -> cluster.serverSelectionTimeout(millis, TimeUnit.MILLISECONDS))
                .applyToSocketSettings(socket -> socket.connectTimeout(millis, TimeUnit.MILLISECONDS)
                        .readTimeout(millis, TimeUnit.MILLISECONDS))
                .build();
    }

    /** A worker that hangs (e.g. a bug in the lock) must not outlive the run. */
    private static void exitAfterDeadline(WorkerSettings settings) {
        Thread watchdog = new Thread(() -> {
            long hardStop = settings.deadlineNanos() + TimeUnit.SECONDS.toNanos(60);
            long left;
            while ((left = hardStop - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(left);
                } catch (InterruptedException ignored) {
                    // keep waiting for the hard stop
                }
            }
            System.err.println("worker " + settings.process() + " still running 60 s after its deadline: halting");
            Runtime.getRuntime().halt(3);
        }, "torture-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    private void run() throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < settings.threads(); i++) {
            Thread thread = new Thread(this::loop, settings.process() + "-t" + i);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private void loop() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (sections.get() < settings.maxSections() && settings.deadlineNanos() - System.nanoTime() > 0) {
            String lock = WorkerSettings.lockName(random.nextInt(settings.locks()));
            long askedAt = System.nanoTime();
            LockSession session;
            try {
                session = locks.acquire(lock, Duration.ofMillis(settings.waitMs()));
            } catch (LockTimeoutException busy) {
                history.acquireFailed(lock, "TIMEOUT", askedAt, System.nanoTime());
                continue;
            } catch (LockStoreException storeDown) {
                history.acquireFailed(lock, "STORE", askedAt, System.nanoTime());
                pause(20_000);
                continue;
            } catch (LockException other) {
                history.acquireFailed(lock, other.getClass().getSimpleName(), askedAt, System.nanoTime());
                pause(20_000);
                continue;
            }
            criticalSection(session, random);
            sections.incrementAndGet();
        }
    }

    private void criticalSection(LockSession session, ThreadLocalRandom random) {
        long start = System.nanoTime();
        String lock = session.name();
        long token = session.fencingToken();
        String owner = session.owner();
        history.started(lock, token, owner, start);
        SectionRecord.WriteOutcome write;
        SectionRecord.WriteOutcome plainWrite = SectionRecord.WriteOutcome.NONE;
        try {
            // The read registers this token with the counter: from now on no earlier token can write.
            Document before = counters.findOneAndUpdate(eq("_id", lock), max("fence", token), BEFORE);
            pause(random.nextInt(settings.workMinMicros(), settings.workMaxMicros() + 1));
            if (before.getLong("fence") > token) {
                write = SectionRecord.WriteOutcome.STALE_READ;
            } else if (!session.isHeld()) {
                write = SectionRecord.WriteOutcome.SKIPPED;
            } else {
                long matched = counters.updateOne(and(eq("_id", lock), eq("fence", token)),
                        combine(set("value", before.getLong("value") + 1), inc("writes", 1L))).getMatchedCount();
                write = matched == 1 ? SectionRecord.WriteOutcome.ACCEPTED : SectionRecord.WriteOutcome.FENCED;
            }
            if (session.isHeld()) {
                counters.updateOne(eq("_id", lock),
                        combine(set("plain", before.getLong("plain") + 1), inc("plainWrites", 1L)));
                plainWrite = SectionRecord.WriteOutcome.ACCEPTED;
            } else {
                plainWrite = SectionRecord.WriteOutcome.SKIPPED;
            }
        } catch (MongoException failed) {
            write = SectionRecord.WriteOutcome.FAILED;
            if (plainWrite == SectionRecord.WriteOutcome.NONE) {
                plainWrite = SectionRecord.WriteOutcome.FAILED;
            }
        }
        long end = System.nanoTime();
        boolean heldAtEnd = session.isHeld();
        history.workDone(lock, token, end, write, plainWrite, heldAtEnd);
        SectionRecord.CloseOutcome close;
        try {
            session.close();
            close = SectionRecord.CloseOutcome.OK;
        } catch (LockLostException lost) {
            close = SectionRecord.CloseOutcome.LOST;
        } catch (LockStoreException storeDown) {
            close = SectionRecord.CloseOutcome.STORE;
        } catch (LockException other) {
            close = SectionRecord.CloseOutcome.OTHER;
        }
        boolean listenerLost = lostTokens.contains(lock + "#" + token);
        if (!listenerLost && (close == SectionRecord.CloseOutcome.LOST || !heldAtEnd)) {
            // The renewal thread may have marked the loss and not yet called the listener.
            long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            while (!(listenerLost = lostTokens.contains(lock + "#" + token)) && giveUp - System.nanoTime() > 0) {
                pause(5_000);
            }
        }
        history.ended(new SectionRecord(settings.process(), lock, token, owner, start, end, false, write, plainWrite,
                heldAtEnd, close, listenerLost));
    }

    private static void pause(long micros) {
        try {
            TimeUnit.MICROSECONDS.sleep(micros);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
