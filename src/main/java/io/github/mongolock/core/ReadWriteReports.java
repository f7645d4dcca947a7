package io.github.mongolock.core;

import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockTracing;
import io.github.mongolock.ReadWriteEvent;
import io.github.mongolock.ReadWriteHold;
import io.github.mongolock.ReadWriteLock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * What a manager tells of its read-write locks' calls and grants, by group and mode (the metrics'
 * {@code readWrite...} methods, a span per call, {@link ReadWriteEvent}s per grant): each read / write call's wait and outcome, each grant's hold time once its caller's
 * last hold of it closes, each grant found lost, and the grants held now (the gauge). It wraps the
 * {@link ReadWriteLock}s the manager hands out, so the locks themselves ({@link ReadWriteLocks}) report nothing; a
 * grant is known by its owner ({@code ...:rw<n>}), which re-entries share. With {@link LockMetrics#NONE} it wraps
 * nothing. Thread-safe.
 */
final class ReadWriteReports {

    private final LockEvents events;
    private final LockMetrics metrics;
    private final LockTracing tracing;
    private final MonotonicClock clock;
    /** The grants handed out and not yet given back or lost, by owner. */
    private final Map<String, Grant> open = new ConcurrentHashMap<>();

    ReadWriteReports(LockEvents events, LockMetrics metrics, LockTracing tracing, MonotonicClock clock) {
        this.events = events;
        this.metrics = metrics;
        this.tracing = tracing;
        this.clock = clock;
    }

    /** A grant's report: its group, mode, grant time, how many of its caller's holds are open, and its event's fields. */
    private record Grant(String group, ReadWriteHold.Mode mode, long atNanos, int holds, String name, long token) {

        Grant counted(int change) {
            return new Grant(group, mode, atNanos, holds + change, name, token);
        }

        ReadWriteEvent event(ReadWriteEvent.Kind kind, String owner) {
            return new ReadWriteEvent(kind, name, mode, token, owner);
        }
    }

    /** {@code lock}, reporting its calls and grants; {@code lock} itself when nothing is recorded and nobody listens. */
    ReadWriteLock reported(ReadWriteLock lock) {
        return metrics == LockMetrics.NONE && tracing == LockTracing.NONE && !events.hasListeners() ? lock : new ReportedLock(lock);
    }

    /** The grants of {@code mode} held now by group, for the metrics' gauge. */
    Map<String, Long> heldByGroup(ReadWriteHold.Mode mode) {
        Map<String, Long> held = new HashMap<>();
        open.values().forEach(grant -> {
            if (grant.mode() == mode) {
                held.merge(grant.group(), 1L, Long::sum);
            }
        });
        return held;
    }

    private Optional<ReadWriteHold> call(ReadWriteHold.Mode mode, String group, boolean waits,
                                         Supplier<Optional<ReadWriteHold>> call) {
        long start = clock.nanoTime();
        LockTracing.Span span = tracing == LockTracing.NONE ? LockTracing.Span.NONE
                : tracing.readWriteAcquireStarted(group, waits ? LockTracing.WaitMode.WAIT : LockTracing.WaitMode.TRY, mode);
        return ReportedCall.report(clock, start, span, () -> call.get().map(held -> opened(held, mode, group)),
                hold -> hold.isPresent() ? OptionalLong.of(hold.get().fencingToken()) : OptionalLong.empty(),
                (outcome, nanos) -> metrics.readWriteAcquireEnded(group, mode, outcome, nanos));
    }

    private ReadWriteHold opened(ReadWriteHold hold, ReadWriteHold.Mode mode, String group) {
        String owner = hold.owner();
        AtomicBoolean fresh = new AtomicBoolean();
        open.compute(owner, (key, grant) -> {
            if (grant == null) {
                fresh.set(true);
                return new Grant(group, mode, clock.nanoTime(), 1, hold.name(), hold.fencingToken());
            }
            return grant.counted(1);
        });
        if (fresh.get()) {
            events.fireReadWrite(new ReadWriteEvent(ReadWriteEvent.Kind.ACQUIRED, hold.name(), mode, hold.fencingToken(), owner));
            // Among the hold's loss actions (registered first, on the notice thread); the listeners after the others.
            hold.onLeaseLost(() -> lost(owner));
        }
        return new ReportedHold(hold);
    }

    private void lost(String owner) {
        Grant grant = open.remove(owner);
        if (grant != null) {
            metrics.readWriteLost(grant.group(), grant.mode());
            if (events.hasListeners()) {
                events.later(() -> events.fireReadWrite(grant.event(ReadWriteEvent.Kind.LEASE_LOST, owner)));
            }
        }
    }

    private void closed(String owner) {
        Grant[] ended = new Grant[1];
        open.computeIfPresent(owner, (key, grant) -> {
            if (grant.holds() > 1) {
                return grant.counted(-1);
            }
            ended[0] = grant;
            return null;
        });
        if (ended[0] != null) {
            released(owner, ended[0]);
        }
    }

    /**
     * The manager closed and gave back every grant still open (its callers' holds bypassed): each is reported given
     * back, once, as a semaphore's hold is on close; a caller's later {@code close()} reports nothing more.
     */
    void managerClosed() {
        for (String owner : List.copyOf(open.keySet())) {
            Grant grant = open.remove(owner);
            if (grant != null) {
                released(owner, grant);
            }
        }
    }

    private void released(String owner, Grant grant) {
        metrics.readWriteHoldEnded(grant.group(), grant.mode(), clock.nanoTime() - grant.atNanos());
        events.fireReadWrite(grant.event(ReadWriteEvent.Kind.RELEASED, owner));
    }

    private static String group(LockOptions options) {
        return options.metricsGroup().orElse(LockMetrics.UNGROUPED);
    }

    /** A manager's read-write lock whose calls are reported. */
    private final class ReportedLock implements ReadWriteLock {
        private final ReadWriteLock lock;

        ReportedLock(ReadWriteLock lock) {
            this.lock = lock;
        }

        @Override
        public String name() {
            return lock.name();
        }

        @Override
        public ReadWriteHold read() {
            return call(ReadWriteHold.Mode.READ, LockMetrics.UNGROUPED, true, () -> Optional.of(lock.read())).orElseThrow();
        }

        @Override
        public ReadWriteHold read(LockOptions options) {
            return call(ReadWriteHold.Mode.READ, group(options), true, () -> Optional.of(lock.read(options))).orElseThrow();
        }

        @Override
        public Optional<ReadWriteHold> tryRead() {
            return call(ReadWriteHold.Mode.READ, LockMetrics.UNGROUPED, false, lock::tryRead);
        }

        @Override
        public Optional<ReadWriteHold> tryRead(LockOptions options) {
            return call(ReadWriteHold.Mode.READ, group(options), false, () -> lock.tryRead(options));
        }

        @Override
        public ReadWriteHold write() {
            return call(ReadWriteHold.Mode.WRITE, LockMetrics.UNGROUPED, true, () -> Optional.of(lock.write())).orElseThrow();
        }

        @Override
        public ReadWriteHold write(LockOptions options) {
            return call(ReadWriteHold.Mode.WRITE, group(options), true, () -> Optional.of(lock.write(options))).orElseThrow();
        }

        @Override
        public Optional<ReadWriteHold> tryWrite() {
            return call(ReadWriteHold.Mode.WRITE, LockMetrics.UNGROUPED, false, lock::tryWrite);
        }

        @Override
        public Optional<ReadWriteHold> tryWrite(LockOptions options) {
            return call(ReadWriteHold.Mode.WRITE, group(options), false, () -> lock.tryWrite(options));
        }

        @Override
        public String toString() {
            return lock.toString();
        }
    }

    /** A hold whose first close reports its grant's end when it is the caller's last open hold of it. */
    private final class ReportedHold implements ReadWriteHold {
        private final ReadWriteHold hold;
        private final AtomicBoolean closed = new AtomicBoolean();

        ReportedHold(ReadWriteHold hold) {
            this.hold = hold;
        }

        @Override
        public String name() {
            return hold.name();
        }

        @Override
        public Mode mode() {
            return hold.mode();
        }

        @Override
        public long fencingToken() {
            return hold.fencingToken();
        }

        @Override
        public String owner() {
            return hold.owner();
        }

        @Override
        public int holdCount() {
            return hold.holdCount();
        }

        @Override
        public boolean isHeld() {
            return hold.isHeld();
        }

        @Override
        public ReadWriteHold onLeaseLost(Runnable action) {
            hold.onLeaseLost(action);
            return this;
        }

        @Override
        public void close() {
            try {
                hold.close();
            } finally {
                if (closed.compareAndSet(false, true)) {
                    closed(hold.owner());
                }
            }
        }

        @Override
        public String toString() {
            return hold.toString();
        }
    }
}
