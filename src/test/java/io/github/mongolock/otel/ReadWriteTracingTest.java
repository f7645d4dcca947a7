package io.github.mongolock.otel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.mongolock.LockOptions;
import io.github.mongolock.LockUpgradeException;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.ReadWriteHold;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A read-write lock's calls are spans of their own: mongolock rw read / tryRead / write / tryWrite, with the mode. */
@ExtendWith(MongoBackend.class)
class ReadWriteTracingTest {

    private final TestMongo mongo;
    private InMemorySpanExporter exporter;
    private OpenTelemetrySdk sdk;
    private String database;

    ReadWriteTracingTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void sdk() {
        exporter = InMemorySpanExporter.create();
        sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build();
        database = mongo.freshDatabase();
    }

    @AfterEach
    void close() {
        sdk.close();
    }

    private MongoLockManager manager() {
        return MongoLockManager.builder().uri(mongo.uri()).database(database).tracing(OpenTelemetryLockTracing.of(sdk)).build();
    }

    @Test
    void eachCallIsASpanWithItsModeOutcomeAndToken() {
        try (MongoLockManager a = manager(); MongoLockManager b = manager()) {
            LockOptions catalog = LockOptions.defaults().metricsGroup("catalog");
            long token;
            try (ReadWriteHold read = a.readWriteLock("catalog-1").read(catalog)) {
                token = read.fencingToken();
                assertEquals(Optional.empty(), b.readWriteLock("catalog-1").tryWrite(catalog.waitTime(Duration.ZERO)));
                assertThrows(LockUpgradeException.class, () -> a.readWriteLock("catalog-1").write(catalog));
            }
            List<SpanData> spans = exporter.getFinishedSpanItems().stream()
                    .filter(span -> span.getName().startsWith("mongolock rw ")).toList();
            assertEquals(List.of("mongolock rw read", "mongolock rw tryWrite", "mongolock rw write"),
                    spans.stream().map(SpanData::getName).toList());
            SpanData read = spans.get(0);
            assertEquals("catalog", read.getAttributes().get(OpenTelemetryLockMetrics.GROUP));
            assertEquals("read", read.getAttributes().get(OpenTelemetryLockMetrics.MODE));
            assertEquals("wait", read.getAttributes().get(OpenTelemetryLockTracing.WAIT_MODE));
            assertEquals("acquired", read.getAttributes().get(OpenTelemetryLockMetrics.OUTCOME));
            assertEquals(token, read.getAttributes().get(OpenTelemetryLockTracing.FENCING_TOKEN));
            assertEquals("skipped", spans.get(1).getAttributes().get(OpenTelemetryLockMetrics.OUTCOME));
            assertEquals("try", spans.get(1).getAttributes().get(OpenTelemetryLockTracing.WAIT_MODE));
            assertEquals("write", spans.get(1).getAttributes().get(OpenTelemetryLockMetrics.MODE));
            assertEquals("failed", spans.get(2).getAttributes().get(OpenTelemetryLockMetrics.OUTCOME));
            assertEquals(StatusCode.ERROR, spans.get(2).getStatus().getStatusCode(), "the refused upgrade");
        }
    }
}
