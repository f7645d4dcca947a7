package io.github.mongolock.benchmark;

import io.github.mongolock.LockSession;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.MongoLockManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Case 9's two blocks, run inside one worker JVM: one hot lock shared by two managers of that JVM (two
 * "machines" that happen to share a process, so every turn between them goes through MongoDB and the push
 * feed), each with {@code threads} callers looping {@code acquire} + {@code close}; and one thread alone on a
 * name nobody else uses, in 1 s slices, through a fresh manager of its own (a manager whose feed is open polls
 * the stand-in's oplog every 3 ms while any of its callers waits, the uncontended one included). The benchmark
 * runs the lone thread right before and right after the hot block, the stand-in's oplog emptied before each;
 * the ratio of the two rates is the issue-22 figure "hot lock, 2 managers x 4 threads in one JVM / one thread
 * alone".
 */
final class OneJvmHotLock {

    private static final long SLICE_MS = 1_000;

    private OneJvmHotLock() {
    }

    /**
     * The hot block: {@code first} and a second manager of this JVM, {@code threads} callers each.
     *
     * @param another builds the second manager (same client and collection, an instance id of its own), closed after
     * @return {@code hot=<grants> first=<grants> second=<grants> timeouts=<n> commands={..}}
     */
    static String hot(MongoLockManager first, Supplier<MongoLockManager> another, String name, int threads,
                      long millis, CommandCounter counter) throws InterruptedException {
        try (MongoLockManager second = another.get()) {
            counter.reset();
            long[] grants = hot(first, second, name, threads, millis);
            return String.format(Locale.ROOT, "hot=%d first=%d second=%d timeouts=%d commands=%s", grants[0] + grants[1],
                    grants[0], grants[1], grants[2], counter.counts().toString().replace(" ", ""));
        }
    }

    /**
     * One thread alone through a fresh manager (one that never waited has no change stream, as in case 7): a
     * 3 s warm-up, then {@code slices} measured 1 s slices.
     *
     * @return {@code solo=<cycles/s>,...}
     */
    static String solo(Supplier<MongoLockManager> fresh, String name, int slices) {
        try (MongoLockManager alone = fresh.get()) {
            solo(alone, name, 3 * SLICE_MS); // JIT: a fresh manager's first second runs at a fraction of the later rate
            StringBuilder rates = new StringBuilder();
            for (int i = 0; i < slices; i++) {
                rates.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.1f", solo(alone, name, SLICE_MS)));
            }
            return "solo=" + rates;
        }
    }

    /** One thread, acquire + close on a name of its own: cycles per second over {@code millis}. */
    private static double solo(MongoLockManager manager, String name, long millis) {
        long start = System.nanoTime();
        long end = start + millis * 1_000_000L;
        long cycles = 0;
        while (System.nanoTime() < end) {
            manager.acquire(name).close();
            cycles++;
        }
        return cycles / ((System.nanoTime() - start) / 1e9);
    }

    /** @return grants returned within the window by the first and the second manager's callers, and timeouts */
    private static long[] hot(MongoLockManager first, MongoLockManager second, String name, int threads, long millis)
            throws InterruptedException {
        LongAdder[] grants = {new LongAdder(), new LongAdder()};
        LongAdder timeouts = new LongAdder();
        long startAt = System.nanoTime() + 100_000_000L;
        long endAt = startAt + millis * 1_000_000L;
        List<Thread> running = new ArrayList<>();
        MongoLockManager[] managers = {first, second};
        for (int m = 0; m < managers.length; m++) {
            for (int t = 0; t < threads; t++) {
                MongoLockManager manager = managers[m];
                LongAdder mine = grants[m];
                Thread thread = new Thread(() -> {
                    while (System.nanoTime() < startAt) {
                        Thread.onSpinWait();
                    }
                    while (System.nanoTime() < endAt) {
                        LockSession session;
                        try {
                            session = manager.acquire(name, Duration.ofSeconds(10));
                        } catch (LockTimeoutException late) {
                            timeouts.increment();
                            continue;
                        }
                        session.close();
                        if (System.nanoTime() < endAt) {
                            mine.increment();
                        }
                    }
                }, "hot-" + m + "-" + t);
                thread.start();
                running.add(thread);
            }
        }
        for (Thread thread : running) {
            thread.join();
        }
        return new long[] {grants[0].sum(), grants[1].sum(), timeouts.sum()};
    }

    /** The median of {@code values}. */
    static double median(double... values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
