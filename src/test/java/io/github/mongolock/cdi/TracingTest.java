package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.Locked;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.stream.Collectors;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * In a CDI container whose application has an {@code OpenTelemetry} bean, each {@code @Locked} call's wait is
 * a span under the caller's span, unless {@code mongolock.tracing.enabled=false}; a value other than true or
 * false fails the deployment, naming the key.
 */
@ExtendWith(MongoBackend.class)
class TracingTest {

    private static InMemorySpanExporter freshSdk() {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        ApplicationTelemetry.sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build();
        return exporter;
    }

    @ApplicationScoped
    public static class Reports {
        @Locked("report-{0}")
        public void nightly(String region) {
        }

        @Locked(value = "cleanup", onBusy = Locked.OnBusy.SKIP)
        public void cleanUp() {
        }
    }

    private static List<SpanData> lockSpans(InMemorySpanExporter exporter) {
        return exporter.getFinishedSpanItems().stream().filter(span -> span.getName().startsWith("mongolock "))
                .collect(Collectors.toList());
    }

    @Test
    void lockedCallsAreSpansUnderTheCallersSpanNamedByTemplate(TestMongo mongo) {
        InMemorySpanExporter exporter = freshSdk();
        Span caller = ApplicationTelemetry.sdk.getTracer("application").spanBuilder("request").startSpan();
        try (WeldContainer node = WeldNodes.start("tracing", WeldNodes.settings(mongo, mongo.freshDatabase()),
                ApplicationTelemetry.class, Reports.class); Scope scope = caller.makeCurrent()) {
            Reports reports = node.select(Reports.class).get();
            reports.nightly("eu");
            reports.cleanUp();
        } finally {
            caller.end();
        }
        // Read before the SDK closes: closing its exporter forgets the spans.
        List<SpanData> spans = lockSpans(exporter);
        ApplicationTelemetry.sdk.close();
        assertEquals(List.of("mongolock acquire", "mongolock tryAcquire"),
                spans.stream().map(SpanData::getName).collect(Collectors.toList()));
        assertEquals("report-{0}", spans.get(0).getAttributes().get(AttributeKey.stringKey("mongolock.lock.group")));
        assertEquals("cleanup", spans.get(1).getAttributes().get(AttributeKey.stringKey("mongolock.lock.group")));
        for (SpanData span : spans) {
            assertEquals(caller.getSpanContext().getSpanId(), span.getParentSpanId(), span.toString());
            assertEquals("acquired", span.getAttributes().get(AttributeKey.stringKey("mongolock.acquire.outcome")));
        }
    }

    @Test
    void tracingCanBeSwitchedOff(TestMongo mongo) {
        InMemorySpanExporter exporter = freshSdk();
        try (WeldContainer node = WeldNodes.start("no-tracing", WeldNodes.settings(mongo, mongo.freshDatabase(),
                "mongolock.tracing.enabled", "false"), ApplicationTelemetry.class, Reports.class)) {
            node.select(Reports.class).get().nightly("eu");
            Span direct = ApplicationTelemetry.sdk.getTracer("application").spanBuilder("direct").startSpan();
            direct.end();
        }
        List<String> names = exporter.getFinishedSpanItems().stream().map(SpanData::getName).collect(Collectors.toList());
        ApplicationTelemetry.sdk.close();
        assertEquals(List.of("direct"), names, "the SDK records, but no lock spans with mongolock.tracing.enabled=false");
    }

    @Test
    void anUnreadableSwitchFailsTheDeploymentNamingTheKey(TestMongo mongo) {
        freshSdk();
        String report = DeploymentErrorTest.deploymentFailure(WeldNodes.settings(mongo, mongo.freshDatabase(),
                "mongolock.tracing.enabled", "yes"), ApplicationTelemetry.class, Reports.class);
        ApplicationTelemetry.sdk.close();
        assertTrue(report.contains("MONGOLOCK-CDI-012: mongolock.tracing.enabled = \"yes\" is not valid"), report);
        assertTrue(report.contains("write true or false"), report);
    }
}
