package io.github.mongolock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** The wake-ups of one manager's callers parked for a lock name. */
class ReleaseSignalsTest {

    private static final String NAME = "job";
    /** Far longer than any assertion waits: a caller that returns did so because it was woken. */
    private static final long LONG_PARK = TimeUnit.SECONDS.toNanos(60);

    private final ReleaseSignals signals = new ReleaseSignals();
    private final LocalWaiters line = new LocalWaiters();

    @Test
    void aReleaseWakesTheCallerParkedLongestAndOnlyIt() throws Exception {
        ReleaseSignals.Signal signal = join(2);
        long seen = signal.generation();
        Parked first = park(signal, seen);
        Parked second = park(signal, seen);

        signals.released(NAME);

        assertEquals("woken", first.outcome(5));
        assertEquals("still parked", second.outcomeNow(), "one release wakes one caller");
        signals.released(NAME);
        assertEquals("woken", second.outcome(5));
    }

    /**
     * A caller interrupted while a release picks it is leaving without the lock: the wake-up goes on to the next
     * caller, as Object.notify guarantees for Object.wait. Lost, the next caller would sleep through a free lock
     * until its backoff ends (up to the ceiling while its manager is queued with the push feed up).
     */
    @Test
    void aWakeUpPickingACallerThatIsInterruptedGoesOnToTheNextCaller() throws Exception {
        ReleaseSignals.Signal signal = join(2);
        long seen = signal.generation();
        Parked interrupted = park(signal, seen);
        Parked next = park(signal, seen);

        synchronized (signal) {
            // Holding the signal's monitor keeps the interrupted caller from leaving before the release picks it.
            interrupted.thread.interrupt();
            signals.released(NAME);
        }

        assertEquals("interrupted", interrupted.outcome(5));
        assertEquals("woken", next.outcome(5), "the wake-up the interrupted caller could not use was lost");
    }

    private ReleaseSignals.Signal join(int callers) {
        ReleaseSignals.Signal signal = null;
        for (int i = 0; i < callers; i++) {
            signal = signals.join(NAME);
        }
        return signal;
    }

    /** A caller parked in {@link ReleaseSignals.Signal#awaitChange}, returning once it is parked. */
    private Parked park(ReleaseSignals.Signal signal, long seen) throws InterruptedException {
        CompletableFuture<String> outcome = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            LocalWaiters.Ticket ticket = line.join(NAME, Duration.ofSeconds(30));
            try {
                outcome.complete(signal.awaitChange(seen, LONG_PARK, ticket) ? "woken" : "timed out");
            } catch (InterruptedException expected) {
                outcome.complete("interrupted");
            }
        }, "parked-caller");
        thread.setDaemon(true);
        thread.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (thread.getState() != Thread.State.TIMED_WAITING) {
            assertTrue(System.nanoTime() < deadline, "the caller did not park within 5 s: " + thread.getState());
            Thread.sleep(1);
        }
        return new Parked(thread, outcome);
    }

    private record Parked(Thread thread, CompletableFuture<String> result) {

        String outcome(int seconds) throws InterruptedException, ExecutionException {
            try {
                return result.get(seconds, TimeUnit.SECONDS);
            } catch (TimeoutException stillParked) {
                return "still parked after " + seconds + " s";
            }
        }

        String outcomeNow() throws InterruptedException, ExecutionException {
            Thread.sleep(200); // a wrongly woken caller returns at once; this gives it ample time to show
            return result.isDone() ? result.get() : "still parked";
        }
    }
}
