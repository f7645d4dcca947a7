package io.github.mongolock.otel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockLostException;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.PermitHold;
import io.github.mongolock.testing.ForeignTakeover;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every span, attribute and event, read back through the OpenTelemetry SDK's in-memory span exporter. */
@ExtendWith(MongoBackend.class)
class OpenTelemetryLockTracingTest {

    private final TestMongo mongo;
    private InMemorySpanExporter exporter;
    private OpenTelemetrySdk sdk;
    private String database;

    OpenTelemetryLockTracingTest(TestMongo mongo) {
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

    private MongoLockManager manager(Duration lease) {
        return MongoLockManager.builder().uri(mongo.uri()).database(database).leaseTime(lease)
                .tracing(OpenTelemetryLockTracing.of(sdk)).build();
    }

    private List<SpanData> lockSpans() {
        return exporter.getFinishedSpanItems().stream()
                .filter(span -> span.getInstrumentationScopeInfo().getName().equals(OpenTelemetryLockMetrics.SCOPE))
                .collect(Collectors.toList());
    }

    private static List<String> events(SpanData span) {
        return span.getEvents().stream().map(EventData::getName).collect(Collectors.toList());
    }

    @Test
    void aGrantedAcquisitionIsAChildOfTheCallersSpanWithItsGroupModeOutcomeAndToken() {
        Span caller = sdk.getTracer("application").spanBuilder("charge").startSpan();
        long token;
        try (MongoLockManager a = manager(Duration.ofSeconds(30)); Scope scope = caller.makeCurrent()) {
            try (LockSession session = a.acquire("account-1", LockOptions.defaults().metricsGroup("account-{id}"))) {
                token = session.fencingToken();
                assertEquals(Span.current(), caller, "the lock's span is not made current: no application code runs in it");
            }
        } finally {
            caller.end();
        }
        List<SpanData> spans = lockSpans();
        assertEquals(1, spans.size(), "one span per call: " + spans);
        SpanData acquire = spans.get(0);
        assertEquals("mongolock acquire", acquire.getName());
        assertEquals(SpanKind.INTERNAL, acquire.getKind());
        assertEquals(caller.getSpanContext().getTraceId(), acquire.getTraceId());
        assertEquals(caller.getSpanContext().getSpanId(), acquire.getParentSpanId(), "a child of the caller's span");
        assertEquals("account-{id}", acquire.getAttributes().get(OpenTelemetryLockMetrics.GROUP));
        assertEquals("wait", acquire.getAttributes().get(OpenTelemetryLockTracing.WAIT_MODE));
        assertEquals("acquired", acquire.getAttributes().get(OpenTelemetryLockMetrics.OUTCOME));
        assertEquals(token, acquire.getAttributes().get(OpenTelemetryLockTracing.FENCING_TOKEN));
        assertTrue(token > 0, "a real token: " + token);
        assertEquals(StatusCode.UNSET, acquire.getStatus().getStatusCode());
        assertEquals(List.of(), events(acquire));
        assertTrue(acquire.getAttributes().asMap().values().stream().noneMatch("account-1"::equals),
                "the resolved name is no attribute: " + acquire.getAttributes());
    }

    @Test
    void aSemaphoresAcquireCallsAreSpansOfTheirOwnWithThePermitsAskedFor() {
        long token;
        try (MongoLockManager a = manager(Duration.ofSeconds(30)); MongoLockManager b = manager(Duration.ofSeconds(30))) {
            LockOptions exports = LockOptions.defaults().metricsGroup("exports");
            try (PermitHold held = a.permits("export", 2).acquire(2, exports)) {
                token = held.fencingToken();
                assertEquals(Optional.empty(), b.permits("export", 2).tryAcquire());
            }
        }
        List<SpanData> spans = lockSpans();
        assertEquals(List.of("mongolock permits acquire", "mongolock permits tryAcquire"),
                spans.stream().map(SpanData::getName).toList());
        SpanData acquire = spans.get(0);
        assertEquals(SpanKind.INTERNAL, acquire.getKind());
        assertEquals("exports", acquire.getAttributes().get(OpenTelemetryLockMetrics.GROUP));
        assertEquals("wait", acquire.getAttributes().get(OpenTelemetryLockTracing.WAIT_MODE));
        assertEquals(2L, acquire.getAttributes().get(OpenTelemetryLockTracing.PERMITS));
        assertEquals("acquired", acquire.getAttributes().get(OpenTelemetryLockMetrics.OUTCOME));
        assertEquals(token, acquire.getAttributes().get(OpenTelemetryLockTracing.FENCING_TOKEN));
        SpanData tried = spans.get(1);
        assertEquals("ungrouped", tried.getAttributes().get(OpenTelemetryLockMetrics.GROUP));
        assertEquals("try", tried.getAttributes().get(OpenTelemetryLockTracing.WAIT_MODE));
        assertEquals(1L, tried.getAttributes().get(OpenTelemetryLockTracing.PERMITS));
        assertEquals("skipped", tried.getAttributes().get(OpenTelemetryLockMetrics.OUTCOME));
        assertEquals(null, tried.getAttributes().get(OpenTelemetryLockTracing.FENCING_TOKEN));
        assertEquals(StatusCode.UNSET, tried.getStatus().getStatusCode());
    }

    @Test
    void skippedAndTimedOutCallsCarryNoTokenAndNoRootSpanIsMissing() {
        try (MongoLockManager a = manager(Duration.ofSeconds(30)); MongoLockManager b = manager(Duration.ofSeconds(30))) {
            try (LockSession held = a.acquire("report")) {
                assertEquals(Optional.empty(), b.tryAcquire("report"));
                assertThrows(LockTimeoutException.class, () -> b.acquire("report", Duration.ofMillis(200)));
            }
        }
        List<SpanData> spans = lockSpans();
        assertEquals(3, spans.size(), "three calls: " + spans);
        SpanData skipped = spans.stream().filter(s -> s.getName().equals("mongolock tryAcquire")).findFirst().orElseThrow();
        assertEquals("try", skipped.getAttributes().get(OpenTelemetryLockTracing.WAIT_MODE));
        assertEquals("skipped", skipped.getAttributes().get(OpenTelemetryLockMetrics.OUTCOME));
        assertEquals("ungrouped", skipped.getAttributes().get(OpenTelemetryLockMetrics.GROUP));
        assertNull(skipped.getAttributes().get(OpenTelemetryLockTracing.FENCING_TOKEN));
        assertFalse(skipped.getParentSpanContext().isValid(), "no current span: a root span");
        SpanData timedOut = spans.stream().filter(s -> "timed_out".equals(s.getAttributes().get(OpenTelemetryLockMetrics.OUTCOME)))
                .findFirst().orElseThrow(() -> new AssertionError("no timed_out span in " + spans));
        assertEquals("mongolock acquire", timedOut.getName());
        assertNull(timedOut.getAttributes().get(OpenTelemetryLockTracing.FENCING_TOKEN));
        assertEquals(StatusCode.UNSET, timedOut.getStatus().getStatusCode(), "a timeout is an expected outcome");
        assertTrue(timedOut.getEndEpochNanos() - timedOut.getStartEpochNanos() >= Duration.ofMillis(200).toNanos(),
                "the span covers the whole wait");
    }

    @Test
    void aHandOverIsAnEventOfTheWaitersSpan() throws Exception {
        try (MongoLockManager a = manager(Duration.ofSeconds(30))) {
            LockSession first = a.acquire("job");
            CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
                try (LockSession second = a.acquire("job", Duration.ofSeconds(10))) {
                    return second.fencingToken();
                }
            });
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            // The waiter's call has started once the lock is asked for by it: give it time to park.
            Thread.sleep(300);
            assertFalse(waiter.isDone(), "the second caller waits while the first holds");
            first.close();
            long token = waiter.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            SpanData handed = lockSpans().stream().filter(s -> events(s).contains("mongolock.handed_over")).findFirst()
                    .orElseThrow(() -> new AssertionError("no hand-over event in " + lockSpans()));
            assertEquals("acquired", handed.getAttributes().get(OpenTelemetryLockMetrics.OUTCOME));
            assertEquals(token, handed.getAttributes().get(OpenTelemetryLockTracing.FENCING_TOKEN));
        }
    }

    @Test
    void aLeaseFoundLostOnReentryIsAnEventOfAFailedSpan() throws Exception {
        try (MongoLockManager a = manager(Duration.ofMillis(300))) {
            LockSession session = a.acquire("job");
            ForeignTakeover.take(mongo.collection(database, "locks"), "job", "someone-else:1:1");
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (session.isHeld() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertFalse(session.isHeld(), "the takeover was seen");
            LockLostException lost = assertThrows(LockLostException.class, () -> a.acquire("job"));
            SpanData failed = lockSpans().get(lockSpans().size() - 1);
            assertEquals(List.of("mongolock.lease_lost", "exception"), events(failed));
            assertEquals("failed", failed.getAttributes().get(OpenTelemetryLockMetrics.OUTCOME));
            assertEquals(StatusCode.ERROR, failed.getStatus().getStatusCode());
            assertNull(failed.getAttributes().get(OpenTelemetryLockTracing.FENCING_TOKEN));
            assertEquals(lost.getClass().getName(), failed.getEvents().get(1).getAttributes()
                    .get(io.opentelemetry.api.common.AttributeKey.stringKey("exception.type")));
        }
    }

    @Test
    void anUnreachableStoreEndsTheSpanWithAnError() {
        try (MongoLockManager unreachable = MongoLockManager.builder().uri("mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300")
                .database("app").storeTimeout(Duration.ofMillis(500)).tracing(OpenTelemetryLockTracing.of(sdk))
                .pushWakeUp(false).build()) {
            assertThrows(LockStoreException.class, () -> unreachable.tryAcquire("job"));
        }
        SpanData failed = lockSpans().get(0);
        assertEquals("failed", failed.getAttributes().get(OpenTelemetryLockMetrics.OUTCOME));
        assertEquals(StatusCode.ERROR, failed.getStatus().getStatusCode());
        assertEquals(List.of("exception"), events(failed));
    }
}
