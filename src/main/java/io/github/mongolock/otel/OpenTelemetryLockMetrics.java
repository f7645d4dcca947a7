package io.github.mongolock.otel;

import io.github.mongolock.LockMetrics;
import io.github.mongolock.ReadWriteHold;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongGauge;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * {@link LockMetrics} as OpenTelemetry instruments, on the meter {@value #SCOPE}. Use it where the
 * OpenTelemetry API is present: MicroProfile Telemetry 2.x servers, Quarkus with its OpenTelemetry
 * extension, or an application's own SDK. The CDI integration does so by itself.
 *
 * <pre>{@code
 * MongoLockManager locks = MongoLockManager.builder().uri(...).database("app")
 *         .metrics(OpenTelemetryLockMetrics.of(openTelemetry))
 *         .build();
 * }</pre>
 *
 * <table>
 *   <caption>Instruments</caption>
 *   <tr><th>name</th><th>kind, unit</th><th>attributes</th></tr>
 *   <tr><td>{@code mongolock.acquire.duration}</td><td>histogram, s</td><td>{@code mongolock.lock.group},
 *       {@code mongolock.acquire.outcome} (acquired, timed_out, skipped, failed)</td></tr>
 *   <tr><td>{@code mongolock.hold.duration}</td><td>histogram, s</td><td>{@code mongolock.lock.group}</td></tr>
 *   <tr><td>{@code mongolock.locks.held}</td><td>gauge, {lock}</td><td>{@code mongolock.lock.group}</td></tr>
 *   <tr><td>{@code mongolock.leases.lost}</td><td>counter, {lease}</td><td>{@code mongolock.lock.group}</td></tr>
 *   <tr><td>{@code mongolock.store.errors}</td><td>counter, {error}</td><td>{@code mongolock.store.operation}</td></tr>
 *   <tr><td>{@code mongolock.push_wake_up.managers}</td><td>gauge, {manager}</td><td>{@code mongolock.push_wake_up.state}
 *       (idle, pushing, polling, ...)</td></tr>
 *   <tr><td>{@code mongolock.permits.acquire.duration}</td><td>histogram, s</td><td>{@code mongolock.lock.group},
 *       {@code mongolock.acquire.outcome}: semaphores' acquire and tryAcquire calls</td></tr>
 *   <tr><td>{@code mongolock.permits.hold.duration}</td><td>histogram, s</td><td>{@code mongolock.lock.group}</td></tr>
 *   <tr><td>{@code mongolock.permits.held}</td><td>gauge, {permit}</td><td>{@code mongolock.lock.group}</td></tr>
 *   <tr><td>{@code mongolock.permits.lost}</td><td>counter, {permit}</td><td>{@code mongolock.lock.group}</td></tr>
 *   <tr><td>{@code mongolock.rw.acquire.duration}</td><td>histogram, s</td><td>{@code mongolock.lock.group},
 *       {@code mongolock.rw.mode} (read, write), {@code mongolock.acquire.outcome}: read-write locks' calls</td></tr>
 *   <tr><td>{@code mongolock.rw.hold.duration}</td><td>histogram, s</td><td>{@code mongolock.lock.group},
 *       {@code mongolock.rw.mode}</td></tr>
 *   <tr><td>{@code mongolock.rw.held}</td><td>gauge, {grant}</td><td>{@code mongolock.lock.group},
 *       {@code mongolock.rw.mode}</td></tr>
 *   <tr><td>{@code mongolock.rw.lost}</td><td>counter, {grant}</td><td>{@code mongolock.lock.group},
 *       {@code mongolock.rw.mode}</td></tr>
 * </table>
 *
 * <p>Semaphores ({@code LockManager.permits}) have instruments of their own, so a lock's series never mixes with a
 * semaphore's; their groups are chosen as for locks.
 *
 * <p>Attributes stay few: the lock <em>group</em> (the {@code @Locked} template or
 * {@link io.github.mongolock.LockOptions#metricsGroup}), never a lock's resolved name unless the
 * application makes the name its group. One instance may serve several managers; the gauges add their
 * figures up. Thread-safe.
 */
public final class OpenTelemetryLockMetrics implements LockMetrics, AutoCloseable {

    /** The instrumentation scope's name. */
    public static final String SCOPE = "io.github.mongolock";

    static final AttributeKey<String> GROUP = AttributeKey.stringKey("mongolock.lock.group");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("mongolock.acquire.outcome");
    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("mongolock.store.operation");
    static final AttributeKey<String> MODE = AttributeKey.stringKey("mongolock.rw.mode");
    static final AttributeKey<String> PUSH_STATE = AttributeKey.stringKey("mongolock.push_wake_up.state");

    private final DoubleHistogram acquireDuration;
    private final DoubleHistogram holdDuration;
    private final LongCounter leasesLost;
    private final LongCounter storeErrors;
    private final List<Observed> observed = new CopyOnWriteArrayList<>();
    /**
     * Groups reported by the locks-held gauge so far, the one that held locks longest ago first: few by design
     * (templates, not names). Guarded by itself.
     */
    private final Set<String> groupsSeen = new LinkedHashSet<>();
    /**
     * How many groups that hold nothing now the locks-held gauge still reports (as 0); past it, those that held
     * locks longest ago are forgotten: an application that makes each lock name its group must not make the
     * gauge remember every name.
     */
    static final int MAX_IDLE_GROUPS = 1_000;
    private final ObservableLongGauge locksHeld;
    private final ObservableLongGauge pushWakeUp;
    private final DoubleHistogram permitAcquireDuration;
    private final DoubleHistogram permitHoldDuration;
    private final LongCounter permitsLost;
    private final ObservableLongGauge permitsHeld;
    private final DoubleHistogram readWriteAcquireDuration;
    private final DoubleHistogram readWriteHoldDuration;
    private final LongCounter readWriteLost;
    private final ObservableLongGauge readWriteHeld;
    /** Groups reported by the read-write gauge so far, per mode, as {@link #groupsSeen}. Each guarded by itself. */
    private final Map<ReadWriteHold.Mode, Set<String>> readWriteGroupsSeen = Map.of(
            ReadWriteHold.Mode.READ, new LinkedHashSet<>(), ReadWriteHold.Mode.WRITE, new LinkedHashSet<>());
    /** Groups reported by the permits-held gauge so far, as {@link #groupsSeen}. Guarded by itself. */
    private final Set<String> permitGroupsSeen = new LinkedHashSet<>();

    private OpenTelemetryLockMetrics(Meter meter) {
        acquireDuration = meter.histogramBuilder("mongolock.acquire.duration").setUnit("s")
                .setDescription("How long acquire and tryAcquire calls took, by outcome").build();
        holdDuration = meter.histogramBuilder("mongolock.hold.duration").setUnit("s")
                .setDescription("How long fresh acquisitions were held, from the grant to the last release").build();
        leasesLost = meter.counterBuilder("mongolock.leases.lost").setUnit("{lease}")
                .setDescription("Leases found lost while held: work under them was no longer protected").build();
        storeErrors = meter.counterBuilder("mongolock.store.errors").setUnit("{error}")
                .setDescription("MongoDB calls that failed, by operation").build();
        locksHeld = meter.gaugeBuilder("mongolock.locks.held").ofLongs().setUnit("{lock}")
                .setDescription("Locks held now by this process's managers").buildWithCallback(this::observeHeld);
        pushWakeUp = meter.gaugeBuilder("mongolock.push_wake_up.managers").ofLongs().setUnit("{manager}")
                .setDescription("Managers by the state of their push wake-up (change stream)")
                .buildWithCallback(this::observePushWakeUp);
        permitAcquireDuration = meter.histogramBuilder("mongolock.permits.acquire.duration").setUnit("s")
                .setDescription("How long semaphores' acquire and tryAcquire calls took, by outcome").build();
        permitHoldDuration = meter.histogramBuilder("mongolock.permits.hold.duration").setUnit("s")
                .setDescription("How long semaphore permits were held, from the grant to the close").build();
        permitsLost = meter.counterBuilder("mongolock.permits.lost").setUnit("{permit}")
                .setDescription("Semaphore permits found lost while held: work under them was no longer protected").build();
        permitsHeld = meter.gaugeBuilder("mongolock.permits.held").ofLongs().setUnit("{permit}")
                .setDescription("Semaphore permits held now by this process's managers").buildWithCallback(this::observePermitsHeld);
        readWriteAcquireDuration = meter.histogramBuilder("mongolock.rw.acquire.duration").setUnit("s")
                .setDescription("How long read-write locks' read and write calls took, by mode and outcome").build();
        readWriteHoldDuration = meter.histogramBuilder("mongolock.rw.hold.duration").setUnit("s")
                .setDescription("How long read-write lock grants were held, from the grant to the caller's last close").build();
        readWriteLost = meter.counterBuilder("mongolock.rw.lost").setUnit("{grant}")
                .setDescription("Read-write lock grants found lost while held: work under them was no longer protected").build();
        readWriteHeld = meter.gaugeBuilder("mongolock.rw.held").ofLongs().setUnit("{grant}")
                .setDescription("Read-write lock grants held now by this process's managers, by mode")
                .buildWithCallback(this::observeReadWriteHeld);
    }

    /** Instruments on {@code openTelemetry}'s meter provider. */
    public static OpenTelemetryLockMetrics of(OpenTelemetry openTelemetry) {
        Objects.requireNonNull(openTelemetry, "openTelemetry");
        return new OpenTelemetryLockMetrics(openTelemetry.getMeterProvider().meterBuilder(SCOPE).build());
    }

    @Override
    public void acquireEnded(String group, Outcome outcome, long waitedNanos) {
        acquireDuration.record(seconds(waitedNanos),
                Attributes.of(GROUP, group, OUTCOME, outcome.name().toLowerCase(Locale.ROOT)));
    }

    @Override
    public void holdEnded(String group, long heldNanos) {
        holdDuration.record(seconds(heldNanos), Attributes.of(GROUP, group));
    }

    @Override
    public void leaseLost(String group) {
        leasesLost.add(1, Attributes.of(GROUP, group));
    }

    @Override
    public void permitAcquireEnded(String group, Outcome outcome, long waitedNanos) {
        permitAcquireDuration.record(seconds(waitedNanos),
                Attributes.of(GROUP, group, OUTCOME, outcome.name().toLowerCase(Locale.ROOT)));
    }

    @Override
    public void permitHoldEnded(String group, long heldNanos) {
        permitHoldDuration.record(seconds(heldNanos), Attributes.of(GROUP, group));
    }

    @Override
    public void permitsLost(String group, int permits) {
        permitsLost.add(permits, Attributes.of(GROUP, group));
    }

    @Override
    public void readWriteAcquireEnded(String group, ReadWriteHold.Mode mode, Outcome outcome, long waitedNanos) {
        readWriteAcquireDuration.record(seconds(waitedNanos), Attributes.of(GROUP, group, MODE, mode(mode),
                OUTCOME, outcome.name().toLowerCase(Locale.ROOT)));
    }

    @Override
    public void readWriteHoldEnded(String group, ReadWriteHold.Mode mode, long heldNanos) {
        readWriteHoldDuration.record(seconds(heldNanos), Attributes.of(GROUP, group, MODE, mode(mode)));
    }

    @Override
    public void readWriteLost(String group, ReadWriteHold.Mode mode) {
        readWriteLost.add(1, Attributes.of(GROUP, group, MODE, mode(mode)));
    }

    private static String mode(ReadWriteHold.Mode mode) {
        return mode.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public void storeFailed(String operation) {
        storeErrors.add(1, Attributes.of(OPERATION, operation));
    }

    @Override
    public AutoCloseable observe(Observed manager) {
        Objects.requireNonNull(manager, "manager");
        observed.add(manager);
        return () -> observed.remove(manager);
    }

    /** Stops the gauges' callbacks (the meter provider keeps the instruments' last state). */
    @Override
    public void close() {
        locksHeld.close();
        pushWakeUp.close();
        permitsHeld.close();
        readWriteHeld.close();
    }

    private void observeHeld(ObservableLongMeasurement measurement) {
        observeByGroup(measurement, groupsSeen, Observed::locksHeldByGroup);
    }

    private void observePermitsHeld(ObservableLongMeasurement measurement) {
        observeByGroup(measurement, permitGroupsSeen, Observed::permitsHeldByGroup);
    }

    private void observeReadWriteHeld(ObservableLongMeasurement measurement) {
        for (ReadWriteHold.Mode mode : ReadWriteHold.Mode.values()) {
            observeByGroup(measurement, readWriteGroupsSeen.get(mode), manager -> manager.readWriteHeldByGroup(mode),
                    Attributes.of(MODE, mode(mode)));
        }
    }

    private void observeByGroup(ObservableLongMeasurement measurement, Set<String> groupsSeen,
                                Function<Observed, Map<String, Long>> byGroup) {
        observeByGroup(measurement, groupsSeen, byGroup, Attributes.empty());
    }

    private void observeByGroup(ObservableLongMeasurement measurement, Set<String> groupsSeen,
                                Function<Observed, Map<String, Long>> byGroup, Attributes also) {
        Map<String, Long> total = new HashMap<>();
        for (Observed manager : observed) {
            byGroup.apply(manager).forEach((group, count) -> total.merge(group, count, Long::sum));
        }
        // A group that held locks before reports 0 now, rather than vanishing from dashboards.
        List<String> reported;
        synchronized (groupsSeen) {
            groupsSeen.removeAll(total.keySet());
            groupsSeen.addAll(total.keySet()); // last: the most recently holding
            Iterator<String> longestIdle = groupsSeen.iterator();
            for (int idle = groupsSeen.size() - total.size(); idle > MAX_IDLE_GROUPS; idle--) {
                longestIdle.next();
                longestIdle.remove();
            }
            reported = List.copyOf(groupsSeen);
        }
        for (String group : reported) {
            measurement.record(total.getOrDefault(group, 0L), also.toBuilder().put(GROUP, group).build());
        }
    }

    private void observePushWakeUp(ObservableLongMeasurement measurement) {
        Map<String, Long> byState = new HashMap<>();
        for (Observed manager : observed) {
            byState.merge(manager.pushWakeUp().toLowerCase(Locale.ROOT), 1L, Long::sum);
        }
        byState.forEach((state, count) -> measurement.record(count, Attributes.of(PUSH_STATE, state)));
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    @Override
    public String toString() {
        return "OpenTelemetryLockMetrics[" + SCOPE + ", observing " + observed.size() + " manager(s)]";
    }
}
