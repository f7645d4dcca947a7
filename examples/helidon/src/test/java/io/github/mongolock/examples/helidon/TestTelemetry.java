package io.github.mongolock.examples.helidon;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;

/**
 * The application's {@code OpenTelemetry} bean, as MicroProfile Telemetry would provide it, here an SDK whose spans
 * stay in memory ({@link #SPANS}) for the test to read. mongolock's extension finds this bean when it creates the
 * {@code LockManager} ({@code mongolock.tracing.enabled} is {@code true} by default where the API is present).
 */
@ApplicationScoped
public class TestTelemetry {

    static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();

    @Produces
    @ApplicationScoped
    OpenTelemetry openTelemetry() {
        return OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(SPANS)).build())
                .build();
    }

    void close(@Disposes OpenTelemetry openTelemetry) {
        if (openTelemetry instanceof OpenTelemetrySdk sdk) {
            sdk.close();
        }
    }
}
