package io.github.mongolock.otel;

import static io.github.mongolock.otel.MetricsSdk.gauge;
import static io.github.mongolock.otel.MetricsSdk.metric;
import static io.github.mongolock.otel.MetricsSdk.point;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockOptions;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.LockUpgradeException;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.ReadWriteHold;
import io.github.mongolock.mongo.LockAdmin;
import io.github.mongolock.testing.Await;
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

/** Read-write locks' instruments (mongolock.rw.*), by group and mode, read back through the SDK's in-memory reader. */
@ExtendWith(MongoBackend.class)
class ReadWriteMetricsTest {

    private final TestMongo mongo;
    private MetricsSdk otel;
    private InMemoryMetricReader reader;
    private OpenTelemetryLockMetrics metrics;
    private String database;

    ReadWriteMetricsTest(TestMongo mongo) {
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
        return MongoLockManager.builder().uri(mongo.uri()).database(database).leaseTime(lease).metrics(metrics).build();
    }

    private static Attributes of(String group, String mode) {
        return Attributes.of(OpenTelemetryLockMetrics.GROUP, group, OpenTelemetryLockMetrics.MODE, mode);
    }

    private static Attributes of(String group, String mode, String outcome) {
        return Attributes.of(OpenTelemetryLockMetrics.GROUP, group, OpenTelemetryLockMetrics.MODE, mode,
                OpenTelemetryLockMetrics.OUTCOME, outcome);
    }

    @Test
    void callsGrantsAndLossesAreRecordedByGroupAndMode() throws Exception {
        try (MongoLockManager a = manager(Duration.ofSeconds(3)); MongoLockManager b = manager(Duration.ofSeconds(3));
             MongoLockManager c = manager(Duration.ofSeconds(3))) {
            LockOptions catalog = LockOptions.defaults().metricsGroup("catalog");
            ReadWriteHold read = a.readWriteLock("catalog-1").read(catalog);
            ReadWriteHold nested = a.readWriteLock("catalog-1").read(catalog); // a re-entry: the same grant
            ReadWriteHold other = b.readWriteLock("catalog-1").read(catalog);
            assertEquals(Optional.empty(), c.readWriteLock("catalog-1").tryWrite(catalog.waitTime(Duration.ZERO)));
            assertThrows(LockTimeoutException.class,
                    () -> c.readWriteLock("catalog-1").write(catalog.waitTime(Duration.ofMillis(200))));
            assertThrows(LockUpgradeException.class, () -> a.readWriteLock("catalog-1").write(catalog));
            Collection<MetricData> during = reader.collectAllMetrics();
            MetricData held = metric(during, "mongolock.rw.held");
            assertEquals(2, gauge(held, of("catalog", "read")), "two grants: the re-entry is not one more: " + held
                    + " read " + read.isHeld() + " other " + other.isHeld() + " " + read.owner() + " " + other.owner());
            assertEquals(0, gauge(held, of("catalog", "write")));
            assertTrue(during.stream().noneMatch(m -> m.getName().startsWith("mongolock.permits.")),
                    "no semaphore series for read-write locks: " + during.stream().map(MetricData::getName).toList());
            Thread.sleep(50);
            nested.close();
            read.close();
            other.close();

            try (ReadWriteHold write = a.readWriteLock("catalog-1").write(catalog)) {
                assertEquals(1, gauge(metric(reader.collectAllMetrics(), "mongolock.rw.held"), of("catalog", "write")));
            }
            ReadWriteHold lost = b.readWriteLock("catalog-1").write(catalog);
            new LockAdmin(mongo.client().getDatabase(database), MongoLockManager.DEFAULT_COLLECTION, Duration.ofSeconds(5),
                    "test").readWriteLocks().forceRelease("catalog-1", lost.owner(), "the test");
            Await.await(() -> reader.collectAllMetrics().stream().anyMatch(m -> m.getName().equals("mongolock.rw.lost")),
                    "the loss is counted");
            assertFalse(lost.isHeld());

            Collection<MetricData> after = reader.collectAllMetrics();
            MetricData calls = metric(after, "mongolock.rw.acquire.duration");
            assertEquals("s", calls.getUnit());
            assertEquals(3, point(calls, of("catalog", "read", "acquired")).getCount());
            assertEquals(1, point(calls, of("catalog", "write", "skipped")).getCount());
            assertTrue(point(calls, of("catalog", "write", "timed_out")).getSum() >= 0.2, "waited the whole 200 ms");
            assertEquals(1, point(calls, of("catalog", "write", "failed")).getCount(), "the refused upgrade");
            assertEquals(2, point(calls, of("catalog", "write", "acquired")).getCount());
            HistogramPointData reads = point(metric(after, "mongolock.rw.hold.duration"), of("catalog", "read"));
            assertEquals(2, reads.getCount(), "a grant ends once, at its caller's last close");
            assertTrue(reads.getMax() >= 0.05, "held at least 50 ms: " + reads.getMax());
            assertEquals(1, point(metric(after, "mongolock.rw.hold.duration"), of("catalog", "write")).getCount());
            assertEquals(1, metric(after, "mongolock.rw.lost").getLongSumData().getPoints().stream()
                    .filter(p -> p.getAttributes().equals(of("catalog", "write"))).mapToLong(LongPointData::getValue).sum());
            MetricData heldAfter = metric(after, "mongolock.rw.held");
            assertEquals(0, gauge(heldAfter, of("catalog", "read")));
            assertEquals(0, gauge(heldAfter, of("catalog", "write")), "a lost grant is held no more");
            assertThrows(Exception.class, lost::close);
        }
    }
}
