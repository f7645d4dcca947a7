package io.github.mongolock.torture;

import io.github.mongolock.LockException;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockSession;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@code HANDOVER} workload: a small fixed pool of threads shares one lock manager. An
 * <em>acquire task</em> acquires a lock, records the section's start, {@link LockSession#detach()
 * detaches} the hold and queues a <em>finish task</em> on the same pool, which runs the critical
 * section's work and closes the session, on whichever pool thread it lands (a quarter of them first
 * {@link LockSession#attach() attach} the hold and nest an acquire, which must re-enter it).
 * Meanwhile the next acquire tasks, often on the very thread that detached a hold, acquire the same
 * names (half of them aim at a name their thread detached and is still open): they must find the
 * lock busy. An acquire that returns a hold count above 1 to a task that
 * did not nest is recorded as an unexpected re-entry.
 *
 * <p>At most {@code POOL_THREADS - 1} acquire tasks exist at a time (running or queued), so a finish
 * task always finds a thread: acquires wait only 20-200 ms, and the work never waits for a thread
 * held by a waiter for longer. Stops by itself at the deadline or the section budget; every hold
 * handed over is closed before {@link #run()} returns.
 */
final class HandoverWorkload {

    static final int POOL_THREADS = 3;
    private static final int NEST_ONE_IN = 4;

    private final WorkerSettings settings;
    private final HistoryWriter history;
    private final LockManager locks;
    private final CriticalSection section;
    private final AtomicInteger handedOver = new AtomicInteger();
    /** {@code thread|lock} of holds acquired and detached on that thread and not yet closed, with their tokens. */
    private final Map<String, Long> openDetached = new ConcurrentHashMap<>();
    private final AtomicInteger threadNumbers = new AtomicInteger();

    HandoverWorkload(WorkerSettings settings, HistoryWriter history, LockManager locks, CriticalSection section) {
        this.settings = settings;
        this.history = history;
        this.locks = locks;
        this.section = section;
    }

    void run() throws InterruptedException {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(POOL_THREADS, POOL_THREADS, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), task -> new Thread(task, settings.process() + "-pool" + threadNumbers.getAndIncrement()));
        Semaphore acquirers = new Semaphore(POOL_THREADS - 1);
        try {
            while (running()) {
                if (acquirers.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                    pool.execute(() -> {
                        try {
                            acquireAndHandOver(pool);
                        } finally {
                            acquirers.release();
                        }
                    });
                }
            }
            // Every acquire task has queued its finish task once all permits are back.
            acquirers.tryAcquire(POOL_THREADS - 1, settings.waitMs() + settings.storeTimeoutMs() * 4,
                    TimeUnit.MILLISECONDS);
        } finally {
            pool.shutdown();
            if (!pool.awaitTermination(settings.leaseMs() * 4 + 10_000, TimeUnit.MILLISECONDS)) {
                pool.shutdownNow();
            }
        }
    }

    private boolean running() {
        return handedOver.get() < settings.maxSections() && settings.deadlineNanos() - System.nanoTime() > 0;
    }

    private void acquireAndHandOver(ThreadPoolExecutor pool) {
        if (!running()) {
            return;
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String thread = Thread.currentThread().getName();
        String lock = WorkerSettings.lockName(random.nextInt(settings.locks()));
        if (random.nextBoolean()) {
            // Aim at the case the rule is about: a name this very thread acquired and detached, still open.
            for (int i = 0; i < settings.locks(); i++) {
                if (openDetached.containsKey(thread + "|" + WorkerSettings.lockName(i))) {
                    lock = WorkerSettings.lockName(i);
                    break;
                }
            }
        }
        boolean detachedHere = openDetached.containsKey(thread + "|" + lock);
        long askedAt = System.nanoTime();
        LockSession session;
        try {
            session = locks.acquire(lock, Duration.ofMillis(random.nextLong(20, 201)));
        } catch (LockException failed) {
            String kind = AcquireFailure.kindOf(failed, "TIMEOUT");
            history.acquireFailed(lock, kind, askedAt, System.nanoTime());
            if (detachedHere) {
                history.detachedRetry(lock, thread, kind);
            }
            return;
        } catch (RuntimeException foreign) {
            history.foreignException("acquire", foreign);
            return;
        }
        if (detachedHere) {
            history.detachedRetry(lock, thread, "GRANTED");
        }
        if (session.holdCount() != 1) {
            // This task nests nothing: a count above 1 means it was let into someone else's hold.
            history.reentry(lock, session.fencingToken(), session.owner(), session.holdCount(),
                    LifecycleHistory.Reentry.Kind.UNEXPECTED, System.nanoTime());
            closeQuietly(session);
            return;
        }
        long start = section.begin(session, askedAt);
        session.detach();
        String key = thread + "|" + lock;
        long token = session.fencingToken();
        openDetached.put(key, token);
        try {
            pool.execute(() -> finish(session, start, thread, key));
        } catch (RejectedExecutionException shuttingDown) {
            finish(session, start, thread, key);
        }
    }

    private void finish(LockSession session, long start, String acquiredOn, String key) {
        String lock = session.name();
        long token = session.fencingToken();
        try {
            history.handedOver(lock, token, acquiredOn, Thread.currentThread().getName());
            if (ThreadLocalRandom.current().nextInt(NEST_ONE_IN) == 0) {
                nest(session);
            }
            section.finish(session, start);
        } catch (RuntimeException foreign) {
            history.foreignException("finish", foreign);
            closeQuietly(session);
        } finally {
            openDetached.remove(key, token);
            handedOver.incrementAndGet();
        }
    }

    /** Attaches the hold here and nests an acquire of it: that one must re-enter (count 2, same token). */
    private void nest(LockSession session) {
        Optional<LockSession> nested;
        try {
            session.attach();
            nested = locks.tryAcquire(session.name());
        } catch (LockException failed) {
            history.reentry(session.name(), session.fencingToken(), session.owner(), -1,
                    LifecycleHistory.Reentry.Kind.MISSED, System.nanoTime());
            return;
        }
        if (nested.isEmpty() || nested.get().holdCount() != 2 || nested.get().fencingToken() != session.fencingToken()) {
            history.reentry(session.name(), nested.map(LockSession::fencingToken).orElse(-1L), session.owner(),
                    nested.map(LockSession::holdCount).orElse(0), LifecycleHistory.Reentry.Kind.MISSED, System.nanoTime());
        }
        nested.ifPresent(HandoverWorkload::closeQuietly);
    }

    private static void closeQuietly(LockSession session) {
        try {
            session.close();
        } catch (LockException ignored) {
            // the section's record says what close() did; this is only clean-up
        }
    }
}
