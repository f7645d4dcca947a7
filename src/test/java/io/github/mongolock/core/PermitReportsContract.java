package io.github.mongolock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockEvent;
import io.github.mongolock.LockListener;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.LockTracing;
import io.github.mongolock.PermitEvent;
import io.github.mongolock.PermitHold;
import io.github.mongolock.Permits;
import io.github.mongolock.PermitsInfo;
import io.github.mongolock.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What a manager tells of its semaphores, on every store: metrics and spans of each acquire call by group, events
 * of each grant, release and loss, the permits held by group, and {@code Permits.inspect()}. Each store's test
 * builds managers with the recorders below and takes one holder's permits back as an operator would.
 */
public abstract class PermitReportsContract {

    /** A manager on the store under test, reporting to {@code metrics}, {@code tracing} and {@code listener}. */
    protected abstract LockManager manager(String instanceId, Duration lease, LockMetrics metrics, LockTracing tracing,
                                           LockListener listener);

    /** Takes {@code owner}'s permits of {@code name} back and tells its session, as an operator's forced release. */
    protected abstract void takeBack(String name, String owner);

    /** Every call, as {@code "method group outcome-or-permits"}. */
    protected static final class RecordedMetrics implements LockMetrics {
        final List<String> calls = new CopyOnWriteArrayList<>();
        final AtomicReference<Observed> observed = new AtomicReference<>();

        @Override
        public void acquireEnded(String group, Outcome outcome, long waitedNanos) {
            calls.add("acquireEnded " + group + " " + outcome);
        }

        @Override
        public void holdEnded(String group, long heldNanos) {
            calls.add("holdEnded " + group);
        }

        @Override
        public void leaseLost(String group) {
            calls.add("leaseLost " + group);
        }

        @Override
        public void permitAcquireEnded(String group, Outcome outcome, long waitedNanos) {
            calls.add("permitAcquireEnded " + group + " " + outcome);
        }

        @Override
        public void permitHoldEnded(String group, long heldNanos) {
            calls.add("permitHoldEnded " + group);
        }

        @Override
        public void permitsLost(String group, int permits) {
            calls.add("permitsLost " + group + " " + permits);
        }

        @Override
        public AutoCloseable observe(Observed manager) {
            observed.set(manager);
            return () -> observed.set(null);
        }
    }

    /** Every span, as {@code "started group mode permits"} and {@code "ended outcome token"}. */
    protected static final class RecordedTracing implements LockTracing {
        final List<String> spans = new CopyOnWriteArrayList<>();

        @Override
        public Span acquireStarted(String group, WaitMode mode) {
            spans.add("lock " + group + " " + mode);
            return Span.NONE;
        }

        @Override
        public Span permitsAcquireStarted(String group, WaitMode mode, int permits) {
            spans.add("permits " + group + " " + mode + " " + permits);
            return new Span() {
                @Override
                public void ended(LockMetrics.Outcome outcome, long fencingToken, Throwable failure) {
                    spans.add("ended " + outcome + " " + fencingToken);
                }
            };
        }
    }

    @Test
    void grantsReleasesTimeoutsAndLossesAreReportedBySemaphoreGroup() throws Exception {
        RecordedMetrics metrics = new RecordedMetrics();
        RecordedTracing tracing = new RecordedTracing();
        List<PermitEvent> events = new CopyOnWriteArrayList<>();
        List<LockEvent> lockEvents = new CopyOnWriteArrayList<>();
        LockListener listener = new LockListener() {
            @Override
            public void onEvent(LockEvent event) {
                lockEvents.add(event);
            }

            @Override
            public void onPermitEvent(PermitEvent event) {
                events.add(event);
            }
        };
        LockManager node = manager("node-1", Duration.ofSeconds(3), metrics, tracing, listener);
        Permits exports = node.permits("export", 2);
        LockOptions grouped = LockOptions.defaults().metricsGroup("exports");

        PermitHold first = exports.acquire(1, grouped);
        PermitHold second = exports.tryAcquire(1, grouped).orElseThrow();
        assertEquals(List.of(new PermitEvent(PermitEvent.Kind.ACQUIRED, "export", first.fencingToken(), first.owner(), 1),
                new PermitEvent(PermitEvent.Kind.ACQUIRED, "export", second.fencingToken(), second.owner(), 1)), events);
        assertEquals(Map.of("exports", 2L), metrics.observed.get().permitsHeldByGroup());
        assertEquals(Map.of(), metrics.observed.get().locksHeldByGroup(), "permits are not locks");
        assertTrue(exports.tryAcquire().isEmpty());
        assertThrows(LockTimeoutException.class, () -> exports.acquire(1, LockOptions.defaults().waitTime(Duration.ofMillis(50))));
        assertEquals(List.of("permitAcquireEnded exports ACQUIRED", "permitAcquireEnded exports ACQUIRED",
                "permitAcquireEnded ungrouped SKIPPED", "permitAcquireEnded ungrouped TIMED_OUT"), metrics.calls);
        assertEquals(List.of("permits exports WAIT 1", "ended ACQUIRED " + first.fencingToken(),
                "permits exports TRY 1", "ended ACQUIRED " + second.fencingToken(),
                "permits ungrouped TRY 1", "ended SKIPPED -1", "permits ungrouped WAIT 1", "ended TIMED_OUT -1"), tracing.spans);

        metrics.calls.clear();
        events.clear();
        first.close();
        assertEquals(List.of("permitHoldEnded exports"), metrics.calls);
        assertEquals(List.of(new PermitEvent(PermitEvent.Kind.RELEASED, "export", first.fencingToken(), first.owner(), 1)), events);
        assertEquals(Map.of("exports", 1L), metrics.observed.get().permitsHeldByGroup());

        metrics.calls.clear();
        events.clear();
        AtomicBoolean toldOwner = new AtomicBoolean();
        second.onLeaseLost(() -> toldOwner.set(true));
        takeBack("export", second.owner());
        Await.await(() -> !events.isEmpty(), "LEASE_LOST fired");
        assertTrue(toldOwner.get(), "the owner's loss actions ran before the listeners");
        assertFalse(second.isHeld());
        assertEquals(List.of(new PermitEvent(PermitEvent.Kind.LEASE_LOST, "export", second.fencingToken(), second.owner(), 1)),
                events);
        assertEquals(List.of("permitsLost exports 1"), metrics.calls);
        assertEquals(Map.of(), metrics.observed.get().permitsHeldByGroup());
        assertThrows(LockLostException.class, second::close);
        assertEquals(1, events.size(), "a lost hold's close reports nothing more");
        assertEquals(List.of("permitsLost exports 1"), metrics.calls);
        assertEquals(List.of(), lockEvents, "a lock listener's onEvent sees no semaphore");

        events.clear();
        PermitHold open = exports.acquire();
        ((AutoCloseable) node).close(); // the manager's close gives back what is still held, and says so
        assertEquals(List.of(PermitEvent.Kind.ACQUIRED, PermitEvent.Kind.RELEASED), events.stream().map(PermitEvent::kind).toList());
        assertEquals(open.owner(), events.get(1).owner());
        assertFalse(open.isHeld());
        assertFalse(tracing.spans.stream().anyMatch(span -> span.startsWith("lock ")), "no lock span for permits");
    }

    @Test
    void inspectShowsTheSemaphoreAsStoredWithEveryManagersHolders() {
        LockManager node1 = manager("node-1", Duration.ofSeconds(30), LockMetrics.NONE, LockTracing.NONE, event -> { });
        LockManager node2 = manager("node-2", Duration.ofSeconds(30), LockMetrics.NONE, LockTracing.NONE, event -> { });
        Permits exports = node1.permits("export", 3);
        assertEquals(Optional.empty(), exports.inspect(), "created by its first grant");
        try (PermitHold one = exports.acquire(); PermitHold two = node2.permits("export", 3).acquire(2, LockOptions.defaults())) {
            PermitsInfo seen = node2.permits("export", 3).inspect().orElseThrow();
            assertEquals("export", seen.name());
            assertEquals(3, seen.limit());
            assertEquals(3, seen.used());
            assertEquals(0, seen.free());
            assertEquals(two.fencingToken(), seen.fencingToken());
            assertEquals(List.of(new PermitsInfo.Holder(one.owner(), 1), new PermitsInfo.Holder(two.owner(), 2)), seen.holders());
        }
        PermitsInfo free = exports.inspect().orElseThrow();
        assertEquals(List.of(0, 3, 0), List.of(free.used(), free.free(), free.holders().size()));
        assertEquals(2, free.fencingToken(), "tokens stay");
        assertTrue(node1.permits("other", 1).inspect().isEmpty());
        assertTrue(node1.inspect("export").isEmpty(), "a lock of the same name is another thing");
    }
}
