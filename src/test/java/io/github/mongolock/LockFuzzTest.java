package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * 8 threads on 2 managers ("two machines") hammer 2 lock names. Inside each critical section they
 * do an unsynchronised read-pause-write on a plain counter: any overlap loses increments. They
 * also check that no one else is inside, that fencing tokens only grow, and sometimes re-enter.
 * Bounded by a count per thread and by a deadline.
 */
@ExtendWith(MongoBackend.class)
class LockFuzzTest {

    private static final int THREADS = 8;
    private static final int MANAGERS = 2;
    private static final String[] NAMES = {"fuzz-a", "fuzz-b"};
    private static final int ITERATIONS_PER_THREAD = 150;
    private static final Duration DEADLINE = Duration.ofSeconds(120);

    /** Deliberately not thread-safe: only the lock protects it. */
    private static final class UnsafeCounter {
        long value;
        long lastToken;
        final AtomicInteger inside = new AtomicInteger();
    }

    @Test
    void countersComeOutExactAndSectionsNeverOverlap(TestMongo mongo) throws Exception {
        String database = mongo.freshDatabase();
        List<MongoLockManager> managers = new ArrayList<>();
        for (int i = 0; i < MANAGERS; i++) {
            managers.add(MongoLockManager.builder().client(mongo.client()).database(database)
                    .instanceId("fuzz-node-" + i).leaseTime(Duration.ofSeconds(10)).build());
        }
        UnsafeCounter[] counters = {new UnsafeCounter(), new UnsafeCounter()};
        AtomicLong increments = new AtomicLong();
        AtomicLong reentries = new AtomicLong();
        AtomicLong overlaps = new AtomicLong();
        AtomicLong tokenRegressions = new AtomicLong();
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        long start = System.nanoTime();
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                LockManager manager = managers.get(t % MANAGERS);
                workers.add(pool.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < ITERATIONS_PER_THREAD && System.nanoTime() < deadline; i++) {
                        int which = random.nextInt(NAMES.length);
                        UnsafeCounter counter = counters[which];
                        try (LockSession session = manager.acquire(NAMES[which], Duration.ofSeconds(60))) {
                            if (counter.inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            if (session.fencingToken() <= counter.lastToken) {
                                tokenRegressions.incrementAndGet();
                            }
                            counter.lastToken = session.fencingToken();
                            long read = counter.value;
                            if (random.nextInt(4) == 0) {
                                Thread.yield();
                            }
                            if (random.nextInt(10) == 0) {
                                try (LockSession nested = manager.acquire(NAMES[which], Duration.ZERO)) {
                                    if (nested.fencingToken() != session.fencingToken() || nested.holdCount() != 2) {
                                        tokenRegressions.incrementAndGet();
                                    }
                                    reentries.incrementAndGet();
                                }
                            }
                            counter.value = read + 1;
                            increments.incrementAndGet();
                            counter.inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(DEADLINE.toSeconds() + 60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            managers.forEach(MongoLockManager::close);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long total = counters[0].value + counters[1].value;
        System.out.printf("[fuzz] backend: %s%n", mongo.kind());
        System.out.printf("[fuzz] %d threads x %d managers, %d names: %d acquisitions (+%d re-entries) in %.2f s = %.0f acquisitions/s;"
                        + " counters %d + %d = %d (expected %d); overlaps %d; token regressions %d%n",
                THREADS, MANAGERS, NAMES.length, increments.get(), reentries.get(), seconds, increments.get() / seconds,
                counters[0].value, counters[1].value, total, increments.get(), overlaps.get(), tokenRegressions.get());
        assertEquals(0, overlaps.get(), "critical sections overlapped");
        assertEquals(0, tokenRegressions.get(), "fencing tokens went backwards or changed on re-entry");
        assertEquals(increments.get(), total, "lost updates");
        assertEquals((long) THREADS * ITERATIONS_PER_THREAD, increments.get(), "every iteration ran before the deadline");
        assertTrue(reentries.get() > 0, "re-entry was exercised");
    }
}
