package io.github.mongolock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockTracing;
import io.github.mongolock.memory.InMemoryLockStore;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The acquisition path without a tracer ({@link LockTracing#NONE}) allocates nothing for tracing: per uncontended
 * acquire + close on the in-memory store it allocates no more than the same path with a tracer whose spans cost
 * nothing, and a tracer allocating one small object per call shows up in the same measurement (so the
 * measurement can see a difference of that size). Bytes counted on the calling thread, lowest of several rounds
 * after warm-up (a round meeting a compilation only adds bytes). Prints its figures.
 */
class TracingAllocationTest {

    private static final int WARM_UP = 20_000;
    private static final int ROUNDS = 8;
    private static final int PER_ROUND = 2_000;

    /** A tracer whose one span is made once: calling it allocates nothing. */
    private static final class Counting implements LockTracing {
        final AtomicLong started = new AtomicLong();
        final AtomicLong ended = new AtomicLong();
        private final Span span = new Span() {
            @Override
            public void ended(LockMetrics.Outcome outcome, long fencingToken, Throwable failure) {
                ended.incrementAndGet();
            }
        };

        @Override
        public Span acquireStarted(String group, WaitMode mode) {
            started.incrementAndGet();
            return span;
        }
    }

    /** A tracer that makes one span object per call, kept so no compiler can take the allocation away. */
    private static final class Allocating implements LockTracing {
        volatile Span last;

        @Override
        public Span acquireStarted(String group, WaitMode mode) {
            Span span = new Span() {
            };
            last = span;
            return span;
        }
    }

    private static LockCoordinator coordinator(String prefix, LockTracing tracing) {
        return new LockCoordinator(new InMemoryLockStore(), prefix, Duration.ofSeconds(30), Duration.ofSeconds(5),
                MonotonicClock.system(), List.of(), io.github.mongolock.core.ReleaseFeed.NONE, LockMetrics.NONE, tracing);
    }

    private static long bytesPerCycle(com.sun.management.ThreadMXBean threads, LockCoordinator coordinator) {
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < PER_ROUND; i++) {
            coordinator.acquire("cycle").close();
        }
        return (threads.getThreadAllocatedBytes(thread) - before) / PER_ROUND;
    }

    @Test
    void withoutATracerTheAcquisitionPathAllocatesNothingForTracing() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        threads.setThreadAllocatedMemoryEnabled(true);
        Counting counting = new Counting();
        Allocating allocating = new Allocating();
        try (LockCoordinator none = coordinator("none", LockTracing.NONE);
             LockCoordinator free = coordinator("free", counting);
             LockCoordinator costly = coordinator("costly", allocating)) {
            for (int i = 0; i < WARM_UP; i++) {
                none.acquire("cycle").close();
                free.acquire("cycle").close();
                costly.acquire("cycle").close();
            }
            long noneBytes = Long.MAX_VALUE;
            long freeBytes = Long.MAX_VALUE;
            long costlyBytes = Long.MAX_VALUE;
            for (int round = 0; round < ROUNDS; round++) {
                noneBytes = Math.min(noneBytes, bytesPerCycle(threads, none));
                freeBytes = Math.min(freeBytes, bytesPerCycle(threads, free));
                costlyBytes = Math.min(costlyBytes, bytesPerCycle(threads, costly));
            }
            System.out.println("[tracing allocation] bytes per acquire + close: no tracer " + noneBytes
                    + ", tracer with free spans " + freeBytes + ", tracer allocating one span per call " + costlyBytes);
            assertEquals(WARM_UP + (long) ROUNDS * PER_ROUND, counting.started.get(), "the free tracer saw every call");
            assertEquals(counting.started.get(), counting.ended.get(), "every span ended once");
            assertTrue(noneBytes <= freeBytes, "no tracer: " + noneBytes + " bytes, more than with a tracer whose spans"
                    + " cost nothing (" + freeBytes + "): the no-tracer path allocates for tracing");
            assertTrue(costlyBytes >= noneBytes + 16, "the measurement sees one span object per call: no tracer "
                    + noneBytes + ", allocating tracer " + costlyBytes);
        }
    }
}
