package io.github.mongolock.torture;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.github.mongolock.LockEvent;
import io.github.mongolock.LockException;
import io.github.mongolock.LockListener;
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
import java.util.function.Supplier;
import org.bson.Document;

/**
 * One worker process of the torture test (its own JVM), running its {@link WorkerSettings.Workload}
 * until the deadline or {@code maxSections}, then exiting by itself:
 * <ul>
 * <li>{@code LOOP}: {@code threads} threads share one lock manager and loop acquire,
 * {@link CriticalSection}, release over {@code locks} lock names;</li>
 * <li>{@code LONG_HOLDS}: the same, one section in {@value #LONG_HOLD_ONE_IN} holding its lock for 1 to 2
 * leases;</li>
 * <li>{@code MEDIUM_HOLDS}: the same, one section in {@value #MEDIUM_HOLD_ONE_IN} holding its lock for
 * {@value #MEDIUM_HOLD_MIN_MICROS}-{@value #MEDIUM_HOLD_MAX_MICROS} microseconds;</li>
 * <li>{@code SHUTDOWN}: the same loop, while a driver thread closes the lock manager every 1-2 s and
 * builds a new one ({@link ManagerGenerations}); a thread told the manager is closed moves to the
 * new one;</li>
 * <li>{@code HANDOVER}: holds acquired on a small pool and finished by other tasks ({@link HandoverWorkload});</li>
 * <li>{@code LEADER}: the worker joins a leader election and asks isLeader() in a loop ({@link LeaderWorkload});</li>
 * <li>{@code MANY_HOLDS}: the worker takes its pair's batch of a few hundred locks, holds them all at once,
 * and releases them, while its partner waits ({@link ManyLocksWorkload}).</li>
 * </ul>
 * Every section is recorded by {@link HistoryWriter}, its start before the work begins.
 */
public final class TortureWorker {

    /** A SHUTDOWN worker closes its manager every 1 to 2 s. */
    private static final long CLOSE_EVERY_MIN_MS = 1_000;
    private static final long CLOSE_EVERY_MAX_MS = 2_000;
    /** One SHUTDOWN section in this many works 0.1-0.3 s: long enough for a close to begin and return inside it. */
    private static final int LONG_SECTION_ONE_IN = 12;
    /** One LONG_HOLDS section in this many holds its lock for 1 to 2 leases (most of the time a lock is held, it is by one of these). */
    static final int LONG_HOLD_ONE_IN = 30;
    /** One MEDIUM_HOLDS section in this many holds its lock for 0.1 to 0.4 s: long enough for a waiter's reads to meet it. */
    static final int MEDIUM_HOLD_ONE_IN = 5;
    static final int MEDIUM_HOLD_MIN_MICROS = 100_000;
    static final int MEDIUM_HOLD_MAX_MICROS = 400_000;

    private final WorkerSettings settings;
    private final HistoryWriter history;
    private final Supplier<LockManager> locks;
    private final CriticalSection section;
    private final AtomicInteger sections = new AtomicInteger();

    private TortureWorker(WorkerSettings settings, HistoryWriter history, Supplier<LockManager> locks,
                          CriticalSection section) {
        this.settings = settings;
        this.history = history;
        this.locks = locks;
        this.section = section;
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
        MongoDatabase database = counterClient.getDatabase(settings.database());
        try {
            switch (settings.workload()) {
                case LOOP, LONG_HOLDS, MEDIUM_HOLDS -> runLoop(settings, history, listener, lostTokens, database);
                case SHUTDOWN -> runShutdown(settings, history, listener, lostTokens, database);
                case LEADER -> {
                    try (MongoLockManager manager = build(settings, listener, settings.process())) {
                        new LeaderWorkload(settings, history, manager).run();
                    }
                }
                case MANY_HOLDS -> {
                    try (MongoLockManager manager = builder(settings, listener, settings.process()).build()) {
                        new ManyLocksWorkload(settings, history, manager, new CriticalSection(settings, history,
                                database.getCollection(WorkerSettings.COUNTERS_COLLECTION), lostTokens, owner -> false, 0))
                                .run();
                    }
                }
                case PERMITS, READ_WRITE -> runPermits(settings, history, listener, database);
                case HANDOVER -> {
                    try (MongoLockManager manager = build(settings, listener, settings.process())) {
                        new HandoverWorkload(settings, history, manager, new CriticalSection(settings, history,
                                database.getCollection(WorkerSettings.COUNTERS_COLLECTION), lostTokens, owner -> false, 0))
                                .run();
                    }
                }
            }
        } finally {
            counterClient.close();
            history.close();
        }
        System.exit(0);
    }

    private static MongoLockManager build(WorkerSettings settings, LockListener listener, String instanceId) {
        return builder(settings, listener, instanceId).build();
    }

    private static MongoLockManager.Builder builder(WorkerSettings settings, LockListener listener, String instanceId) {
        return MongoLockManager.builder().uri(settings.uri()).database(settings.database())
                .collection(WorkerSettings.LOCKS_COLLECTION).leaseTime(Duration.ofMillis(settings.leaseMs()))
                .waitTime(Duration.ofMillis(settings.waitMs())).storeTimeout(Duration.ofMillis(settings.storeTimeoutMs()))
                .instanceId(instanceId).listener(listener);
    }

    private static void runLoop(WorkerSettings settings, HistoryWriter history, LockListener listener,
                                Set<String> lostTokens, MongoDatabase database) throws InterruptedException {
        Runnable managerCloser;
        LockManager manager;
        MongoClient lockClient = null;
        if (settings.clockOffsetNanos() == 0) {
            MongoLockManager built = build(settings, listener, settings.process());
            manager = built;
            managerCloser = built::close;
        } else {
            // The skew scenario: the lock manager's only client clock runs far ahead of (or behind) the machine's.
            long offset = settings.clockOffsetNanos();
            MonotonicClock skewed = () -> System.nanoTime() + offset;
            lockClient = MongoClients.create(clientSettings(settings.uri(), Duration.ofMillis(settings.storeTimeoutMs())));
            MongoLockStore store = new MongoLockStore(
                    lockClient.getDatabase(settings.database()).getCollection(WorkerSettings.LOCKS_COLLECTION));
            String ownerPrefix = settings.process() + ":" + UUID.randomUUID().toString().replace("-", "");
            // Wired as MongoLockManager.Builder wires it, push wake-up included, but with the skewed clock.
            LockCoordinator coordinator = new LockCoordinator(store, ownerPrefix, Duration.ofMillis(settings.leaseMs()),
                    Duration.ofMillis(settings.waitMs()), skewed, List.of(listener),
                    new MongoReleaseFeed(store.collection(), "mongolock-release-feed-" + ownerPrefix));
            manager = coordinator;
            managerCloser = coordinator::close;
        }
        int leaseMicros = (int) Math.min(settings.leaseMs() * 1_000, Integer.MAX_VALUE / 2);
        boolean medium = settings.workload() == WorkerSettings.Workload.MEDIUM_HOLDS;
        int longOneIn = switch (settings.workload()) {
            case LONG_HOLDS -> LONG_HOLD_ONE_IN;
            case MEDIUM_HOLDS -> MEDIUM_HOLD_ONE_IN;
            default -> 0;
        };
        CriticalSection section = new CriticalSection(settings, history,
                database.getCollection(WorkerSettings.COUNTERS_COLLECTION), lostTokens, owner -> false, longOneIn,
                medium ? MEDIUM_HOLD_MIN_MICROS : leaseMicros, medium ? MEDIUM_HOLD_MAX_MICROS : 2 * leaseMicros);
        try {
            new TortureWorker(settings, history, () -> manager, section).runThreads();
        } finally {
            try {
                managerCloser.run();
            } catch (RuntimeException failed) {
                System.err.println("closing the lock manager failed: " + failed);
            }
            if (lockClient != null) {
                lockClient.close();
            }
        }
    }

    /** The permits workload, or the read-write one (both hold entries of the semaphore's documents). */
    private static void runWorkload(WorkerSettings settings, HistoryWriter history, LockManager manager,
                                    MongoCollection<Document> counters) throws InterruptedException {
        if (settings.workload() == WorkerSettings.Workload.READ_WRITE) {
            new ReadWriteWorkload(settings, history, manager, counters).run();
        } else {
            new PermitsWorkload(settings, history, manager, counters).run();
        }
    }

    /**
     * The permits (or read-write) workload on a manager built as users build it; under the mutation {@link GrantWithoutUsed}, on a
     * {@link LockCoordinator} wired as the builder wires it (as the skew scenario's) over the mutated collection.
     */
    private static void runPermits(WorkerSettings settings, HistoryWriter history, LockListener listener,
                                   MongoDatabase database) throws InterruptedException {
        MongoCollection<Document> counters = database.getCollection(WorkerSettings.COUNTERS_COLLECTION);
        if (!GrantWithoutUsed.chosen()) {
            try (MongoLockManager manager = build(settings, listener, settings.process())) {
                runWorkload(settings, history, manager, counters);
            }
            return;
        }
        System.err.println("MUTATION " + GrantWithoutUsed.chosenName() + ": " + GrantWithoutUsed.chosenKind()
                + " grants ignore the permits in use");
        try (MongoClient lockClient = MongoClients.create(clientSettings(settings.uri(),
                Duration.ofMillis(settings.storeTimeoutMs())))) {
            MongoLockStore store = new MongoLockStore(GrantWithoutUsed.wrap(
                    lockClient.getDatabase(settings.database()).getCollection(WorkerSettings.LOCKS_COLLECTION)),
                    Duration.ofMillis(settings.storeTimeoutMs()));
            String ownerPrefix = settings.process() + ":" + UUID.randomUUID().toString().replace("-", "");
            LockCoordinator coordinator = new LockCoordinator(store, ownerPrefix, Duration.ofMillis(settings.leaseMs()),
                    Duration.ofMillis(settings.waitMs()), MonotonicClock.system(), List.of(listener),
                    new MongoReleaseFeed(store.collection(), "mongolock-release-feed-" + ownerPrefix));
            try {
                runWorkload(settings, history, coordinator, counters);
            } finally {
                coordinator.close();
            }
        }
    }

    private static void runShutdown(WorkerSettings settings, HistoryWriter history, LockListener listener,
                                    Set<String> lostTokens, MongoDatabase database) throws InterruptedException {
        ManagerGenerations generations = new ManagerGenerations(settings.process(), history,
                database.getCollection(WorkerSettings.LOCKS_COLLECTION), id -> build(settings, listener, id));
        CriticalSection section = new CriticalSection(settings, history,
                database.getCollection(WorkerSettings.COUNTERS_COLLECTION), lostTokens, generations::retired,
                LONG_SECTION_ONE_IN);
        TortureWorker worker = new TortureWorker(settings, history, generations::current, section);
        Thread driver = new Thread(() -> generations.replaceUntil(settings.deadlineNanos(), CLOSE_EVERY_MIN_MS,
                CLOSE_EVERY_MAX_MS, worker::running), settings.process() + "-closer");
        driver.start();
        try {
            worker.runThreads();
        } finally {
            driver.join(TimeUnit.SECONDS.toMillis(30));
            generations.close();
        }
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

    /**
     * One store round trip before the threads start: a fresh JVM's first call pays for class loading and
     * the driver's connection set-up, and a waiter cannot see a lock held before its client works. The
     * checker counts recovery from a waiter's first acquire call, so that call must be a working one.
     */
    private void warmUp() {
        try {
            locks.get().inspect(WorkerSettings.lockName(0));
        } catch (LockException storeDown) {
            // MongoDB is down right now (an outage scenario): the threads find out for themselves
        }
    }

    /** Whether the threads still start sections: before the deadline and within the budget. */
    private boolean running() {
        return sections.get() < settings.maxSections() && settings.deadlineNanos() - System.nanoTime() > 0;
    }

    private void runThreads() throws InterruptedException {
        warmUp();
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
        while (running()) {
            String lock = WorkerSettings.lockName(random.nextInt(settings.locks()));
            long askedAt = System.nanoTime();
            LockSession session;
            try {
                session = locks.get().acquire(lock, Duration.ofMillis(settings.waitMs()));
            } catch (LockTimeoutException busy) {
                history.acquireFailed(lock, "TIMEOUT", askedAt, System.nanoTime());
                continue;
            } catch (LockStoreException storeDown) {
                history.acquireFailed(lock, "STORE", askedAt, System.nanoTime());
                CriticalSection.pause(20_000);
                continue;
            } catch (LockException other) {
                // A closed manager's callers are told so; the next round takes the manager that replaced it.
                boolean closed = String.valueOf(other.getMessage()).contains("is closed");
                history.acquireFailed(lock, closed ? AcquireFailure.CLOSED : other.getClass().getSimpleName(), askedAt,
                        System.nanoTime());
                if (!closed) {
                    CriticalSection.pause(20_000);
                }
                continue;
            } catch (RuntimeException foreign) {
                history.foreignException("acquire", foreign);
                CriticalSection.pause(20_000);
                continue;
            }
            section.finish(session, section.begin(session, askedAt));
            sections.incrementAndGet();
        }
    }
}
