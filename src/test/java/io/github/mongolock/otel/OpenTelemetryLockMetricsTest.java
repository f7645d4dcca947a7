package io.github.mongolock.otel;

import static io.github.mongolock.otel.MetricsSdk.gauge;
import static io.github.mongolock.otel.MetricsSdk.metric;
import static io.github.mongolock.otel.MetricsSdk.point;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.PermitHold;
import io.github.mongolock.testing.ForeignTakeover;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every instrument, read back through the OpenTelemetry SDK's in-memory reader. */
@ExtendWith(MongoBackend.class)
class OpenTelemetryLockMetricsTest {

    private final TestMongo mongo;
    private MetricsSdk otel;
    private InMemoryMetricReader reader;
    private OpenTelemetryLockMetrics metrics;
    private String database;

    OpenTelemetryLockMetricsTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void sdk() {
        otel = new MetricsSdk();
        reader = otel.reader;
        metrics = otel.metrics;
        database = mongo.freshDatabase();
    }

    @AfterEach
    void close() {
        otel.close();
    }

    private MongoLockManager manager(Duration lease) {
        return MongoLockManager.builder().uri(mongo.uri()).database(database).leaseTime(lease)
                .metrics(metrics).build();
    }

    private static Attributes acquire(String group, String outcome) {
        return Attributes.of(OpenTelemetryLockMetrics.GROUP, group, OpenTelemetryLockMetrics.OUTCOME, outcome);
    }

    @Test
    void acquisitionsHoldsAndLocksHeldAreRecordedByGroupNeverByName() throws Exception {
        try (MongoLockManager a = manager(Duration.ofSeconds(30)); MongoLockManager b = manager(Duration.ofSeconds(30))) {
            LockOptions account = LockOptions.defaults().metricsGroup("account-{id}");
            LockSession first = a.acquire("account-1", account);
            LockSession second = a.acquire("account-2", account);
            assertEquals(Optional.empty(), b.tryAcquire("account-1", account));
            assertThrows(LockTimeoutException.class,
                    () -> b.acquire("account-2", account.waitTime(Duration.ofMillis(200))));
            try (LockSession plain = a.acquire("report")) {
                Collection<MetricData> during = reader.collectAllMetrics();
                MetricData held = metric(during, "mongolock.locks.held");
                assertEquals(2, gauge(held, Attributes.of(OpenTelemetryLockMetrics.GROUP, "account-{id}")));
                assertEquals(1, gauge(held, Attributes.of(OpenTelemetryLockMetrics.GROUP, "ungrouped")), "no group given");
            }
            Thread.sleep(50);
            first.close();
            second.close();

            Collection<MetricData> after = reader.collectAllMetrics();
            MetricData waits = metric(after, "mongolock.acquire.duration");
            assertEquals("s", waits.getUnit());
            assertEquals(2, point(waits, acquire("account-{id}", "acquired")).getCount());
            assertEquals(1, point(waits, acquire("account-{id}", "skipped")).getCount());
            HistogramPointData timedOut = point(waits, acquire("account-{id}", "timed_out"));
            assertEquals(1, timedOut.getCount());
            assertTrue(timedOut.getSum() >= 0.2, "waited the whole 200 ms: " + timedOut.getSum());
            assertEquals(1, point(waits, acquire("ungrouped", "acquired")).getCount());
            MetricData holds = metric(after, "mongolock.hold.duration");
            HistogramPointData accountHolds = point(holds, Attributes.of(OpenTelemetryLockMetrics.GROUP, "account-{id}"));
            assertEquals(2, accountHolds.getCount());
            assertTrue(accountHolds.getMin() >= 0.05, "held at least 50 ms: " + accountHolds.getMin());
            assertEquals(0, gauge(metric(after, "mongolock.locks.held"),
                    Attributes.of(OpenTelemetryLockMetrics.GROUP, "account-{id}")), "all released");
            assertTrue(after.stream().flatMap(m -> m.getData().getPoints().stream())
                    .noneMatch(p -> p.getAttributes().asMap().containsValue("account-1")), "no resolved name anywhere");
            MetricData push = metric(after, "mongolock.push_wake_up.managers");
            assertEquals(2, push.getLongGaugeData().getPoints().stream().mapToLong(LongPointData::getValue).sum(),
                    "both managers, by state: " + push.getLongGaugeData().getPoints());
        }
    }

    @Test
    void semaphoresHaveInstrumentsOfTheirOwnByGroup() throws Exception {
        try (MongoLockManager a = manager(Duration.ofSeconds(1)); MongoLockManager b = manager(Duration.ofSeconds(1))) {
            LockOptions exports = LockOptions.defaults().metricsGroup("exports");
            PermitHold first = a.permits("export", 2).acquire(2, exports);
            assertEquals(Optional.empty(), b.permits("export", 2).tryAcquire(1, exports));
            assertThrows(LockTimeoutException.class,
                    () -> b.permits("export", 2).acquire(1, exports.waitTime(Duration.ofMillis(200))));
            Collection<MetricData> during = reader.collectAllMetrics();
            assertEquals(2, gauge(metric(during, "mongolock.permits.held"), Attributes.of(OpenTelemetryLockMetrics.GROUP, "exports")));
            assertTrue(during.stream().noneMatch(m -> m.getName().equals("mongolock.acquire.duration")),
                    "no lock series for semaphores: " + during.stream().map(MetricData::getName).toList());
            Thread.sleep(50);
            first.close();
            PermitHold lost = a.permits("export", 2).acquire(1, exports);
            new io.github.mongolock.mongo.LockAdmin(mongo.client().getDatabase(database), MongoLockManager.DEFAULT_COLLECTION,
                    Duration.ofSeconds(5), "test").forceReleasePermits("export", lost.owner(), "the test");
            // The loss is counted on the renewer's thread once its check found the permits gone.
            io.github.mongolock.testing.Await.await(() -> reader.collectAllMetrics().stream()
                    .anyMatch(m -> m.getName().equals("mongolock.permits.lost")), "the loss is counted");
            assertFalse(lost.isHeld());

            Collection<MetricData> after = reader.collectAllMetrics();
            MetricData waits = metric(after, "mongolock.permits.acquire.duration");
            assertEquals("s", waits.getUnit());
            assertEquals(2, point(waits, acquire("exports", "acquired")).getCount());
            assertEquals(1, point(waits, acquire("exports", "skipped")).getCount());
            assertTrue(point(waits, acquire("exports", "timed_out")).getSum() >= 0.2, "waited the whole 200 ms");
            HistogramPointData holds = point(metric(after, "mongolock.permits.hold.duration"),
                    Attributes.of(OpenTelemetryLockMetrics.GROUP, "exports"));
            assertEquals(1, holds.getCount());
            assertTrue(holds.getMin() >= 0.05, "held at least 50 ms: " + holds.getMin());
            MetricData permitsLost = metric(after, "mongolock.permits.lost");
            assertEquals("{permit}", permitsLost.getUnit());
            assertEquals(1, permitsLost.getLongSumData().getPoints().stream()
                    .filter(p -> p.getAttributes().equals(Attributes.of(OpenTelemetryLockMetrics.GROUP, "exports")))
                    .mapToLong(LongPointData::getValue).sum());
            assertEquals(0, gauge(metric(after, "mongolock.permits.held"), Attributes.of(OpenTelemetryLockMetrics.GROUP, "exports")),
                    "none held: the lost one is not counted");
            assertTrue(after.stream().noneMatch(m -> m.getName().equals("mongolock.leases.lost")), "no lock lost");
            assertThrows(io.github.mongolock.LockLostException.class, lost::close);
        }
    }

    @Test
    void aLostLeaseAndStoreFailuresAreCounted() throws Exception {
        try (MongoLockManager a = manager(Duration.ofMillis(300))) {
            LockSession session = a.acquire("job", LockOptions.defaults().metricsGroup("job"));
            ForeignTakeover.take(mongo.collection(database, "locks"), "job", "someone-else:1:1");
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (session.isHeld() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            Thread.sleep(100); // the loss is counted on the renewer's thread, before the session can see it
            MetricData lost = metric(reader.collectAllMetrics(), "mongolock.leases.lost");
            assertEquals(1, lost.getLongSumData().getPoints().iterator().next().getValue());
            assertEquals(Attributes.of(OpenTelemetryLockMetrics.GROUP, "job"),
                    lost.getLongSumData().getPoints().iterator().next().getAttributes());
        }
        try (MongoLockManager unreachable = MongoLockManager.builder().uri("mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300")
                .database("app").storeTimeout(Duration.ofMillis(500)).metrics(metrics).pushWakeUp(false).build()) {
            assertThrows(LockStoreException.class, () -> unreachable.tryAcquire("job"));
            Collection<MetricData> all = reader.collectAllMetrics();
            MetricData errors = metric(all, "mongolock.store.errors");
            // A manager's first call opens its session: that is the call that fails, once.
            assertEquals(1, errors.getLongSumData().getPoints().stream()
                    .filter(p -> p.getAttributes().equals(Attributes.of(OpenTelemetryLockMetrics.OPERATION, "open")))
                    .mapToLong(LongPointData::getValue).sum(), "failures by operation: " + errors.getLongSumData().getPoints());
            assertEquals(1, errors.getLongSumData().getPoints().stream().mapToLong(LongPointData::getValue).sum(),
                    "one failure in all: " + errors.getLongSumData().getPoints());
            assertEquals(1, point(metric(all, "mongolock.acquire.duration"), acquire("ungrouped", "failed")).getCount());
        }
    }

    /**
     * Issue 34: a manager built from a URI with a password (the stand-in asks for none, a real server refuses it):
     * no metric name, description or attribute shows anything of it, whether the calls succeed or fail.
     */
    @Test
    void noMetricShowsTheUrisPassword() {
        String password = "Top/Secret";
        String uri = io.github.mongolock.testing.SecretLeaks.withCredentials(mongo.uri(), "admin",
                io.github.mongolock.testing.SecretLeaks.encoded(password));
        try (MongoLockManager manager = MongoLockManager.builder().uri(uri).database(database).metrics(metrics)
                .storeTimeout(Duration.ofSeconds(2)).waitTime(Duration.ZERO).build()) {
            for (int i = 0; i < 3; i++) {
                try {
                    manager.tryAcquire("job-" + i, LockOptions.defaults().metricsGroup("job")).ifPresent(LockSession::close);
                } catch (io.github.mongolock.LockException refused) {
                    io.github.mongolock.testing.SecretLeaks.assertNothingOf(password, "the failure",
                            io.github.mongolock.testing.SecretLeaks.chain(refused));
                }
            }
            Collection<MetricData> all = reader.collectAllMetrics();
            assertTrue(!all.isEmpty(), "something was recorded");
            io.github.mongolock.testing.SecretLeaks.assertNothingOf(password, "the metrics", all.toString());
        }
    }

    /**
     * Issue 34: an application that makes every lock name its own group (a name per request) does not make the
     * locks-held gauge remember every group forever: groups that hold nothing are reported as 0 only up to
     * {@value OpenTelemetryLockMetrics#MAX_IDLE_GROUPS} of them. Seen failing before: 2,000 points (the SDK's own
     * cardinality limit cut the 3,000 groups the gauge kept and reported).
     */
    @Test
    void theLocksHeldGaugeForgetsIdleGroupsPastItsBound() throws Exception {
        String[] holding = {"none"};
        io.github.mongolock.LockMetrics.Observed manager = new io.github.mongolock.LockMetrics.Observed() {
            @Override
            public String instanceId() {
                return "stub";
            }

            @Override
            public java.util.Map<String, Long> locksHeldByGroup() {
                return java.util.Map.of(holding[0], 1L);
            }

            @Override
            public String pushWakeUp() {
                return "IDLE";
            }
        };
        try (AutoCloseable observed = metrics.observe(manager)) {
            for (int i = 0; i < 3_000; i++) {
                holding[0] = "request-" + i;
                reader.collectAllMetrics();
            }
            MetricData held = metric(reader.collectAllMetrics(), "mongolock.locks.held");
            long points = held.getLongGaugeData().getPoints().size();
            assertTrue(points <= OpenTelemetryLockMetrics.MAX_IDLE_GROUPS + 1, "points of the gauge: " + points);
            assertEquals(1, gauge(held, Attributes.of(OpenTelemetryLockMetrics.GROUP, "request-2999")), "the group holding now");
            assertEquals(0, gauge(held, Attributes.of(OpenTelemetryLockMetrics.GROUP, "request-2998")), "a recent idle group");
        }
    }
}
