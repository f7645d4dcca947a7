package io.github.mongolock.core;

import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockTracing;
import io.github.mongolock.PermitEvent;
import io.github.mongolock.PermitHold;
import io.github.mongolock.PermitsInfo;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What a manager tells of its semaphores: each acquire call's wait and outcome (metrics and a span, as for locks),
 * each grant, release and loss (metrics and {@link PermitEvent}s), and the permits held by group (the gauge). A hold
 * is reported ended once, released or lost, whichever is seen first. Owned by one {@link PermitCoordinator};
 * thread-safe.
 */
final class PermitReports {

    /** The manager's read-write locks' reports, beside its semaphores'. */
    final ReadWriteReports readWrite;
    private final LockEvents events;
    private final LockMetrics metrics;
    private final LockTracing tracing;
    private final MonotonicClock clock;
    /** The holds granted and not yet reported ended, with their group and grant time. */
    private final Map<HeldPermits, Granted> open = new ConcurrentHashMap<>();

    PermitReports(LockEvents events, LockMetrics metrics, LockTracing tracing, MonotonicClock clock) {
        this.readWrite = new ReadWriteReports(events, metrics, tracing, clock);
        this.events = events;
        this.metrics = metrics;
        this.tracing = tracing;
        this.clock = clock;
    }

    private record Granted(String group, long atNanos) {
    }

    /**
     * Runs one acquire ({@code throwWhenBusy}) or tryAcquire call and reports it.
     *
     * @param call the call; null when it found too few permits free (tryAcquire)
     * @return what {@code call} returned
     */
    PermitHold acquire(int permits, LockOptions options, boolean throwWhenBusy, Supplier<PermitHold> call) {
        String group = options.metricsGroup().orElse(LockMetrics.UNGROUPED);
        if (metrics == LockMetrics.NONE && tracing == LockTracing.NONE) {
            return granted(call.get(), group);
        }
        long start = clock.nanoTime();
        LockTracing.Span span = tracing == LockTracing.NONE ? LockTracing.Span.NONE
                : tracing.permitsAcquireStarted(group, throwWhenBusy ? LockTracing.WaitMode.WAIT : LockTracing.WaitMode.TRY, permits);
        return ReportedCall.report(clock, start, span, () -> granted(call.get(), group),
                hold -> hold == null ? OptionalLong.empty() : OptionalLong.of(hold.fencingToken()),
                (outcome, nanos) -> metrics.permitAcquireEnded(group, outcome, nanos));
    }

    private PermitHold granted(PermitHold hold, String group) {
        if (hold instanceof HeldPermits held) {
            open.put(held, new Granted(group, clock.nanoTime()));
            fire(PermitEvent.Kind.ACQUIRED, held);
            if (held.lost()) {
                ended(held, true, true); // found lost by a check before it was reported granted: reported now, once
            }
        }
        return hold;
    }

    /**
     * The hold was closed ({@code lost}: after its lease was lost) or found lost; reported once. A loss found in the
     * background ({@code later}) is told to the listeners on the notice thread, after the hold's loss actions.
     */
    void ended(HeldPermits hold, boolean lost, boolean later) {
        Granted granted = open.remove(hold);
        if (granted == null) {
            return; // reported already, or never returned to a caller
        }
        if (!lost) {
            metrics.permitHoldEnded(granted.group(), clock.nanoTime() - granted.atNanos());
            fire(PermitEvent.Kind.RELEASED, hold);
            return;
        }
        metrics.permitsLost(granted.group(), hold.permits);
        if (later) {
            events.later(() -> fire(PermitEvent.Kind.LEASE_LOST, hold));
        } else {
            fire(PermitEvent.Kind.LEASE_LOST, hold);
        }
    }

    private void fire(PermitEvent.Kind kind, HeldPermits hold) {
        events.firePermit(new PermitEvent(kind, hold.name, hold.fencingToken, hold.owner, hold.permits));
    }

    /** A semaphore as read, as {@link io.github.mongolock.Permits#inspect()} shows it. */
    static PermitsInfo info(PermitHolders read) {
        return new PermitsInfo(read.name(), read.limit(), read.used(), read.token(), read.holds().stream()
                .map(hold -> new PermitsInfo.Holder(hold.owner(), hold.permits())).toList());
    }

    /** The permits held now by group, for the metrics' gauge. */
    Map<String, Long> heldByGroup() {
        Map<String, Long> held = new HashMap<>();
        open.forEach((hold, granted) -> held.merge(granted.group(), (long) hold.permits, Long::sum));
        return held;
    }
}
