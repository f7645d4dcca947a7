package io.github.mongolock.examples.quarkus;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * A span exporter that keeps what Quarkus's OpenTelemetry SDK exports, in memory: with the default
 * {@code quarkus.otel.traces.exporter=cdi}, quarkus-opentelemetry exports to every {@code SpanExporter} bean.
 * Part of every {@code @QuarkusTest} application of this module (test classes are beans there); only
 * {@link QuarkusTracingTest} reads it.
 */
@ApplicationScoped
public class InMemorySpans {

    @Produces
    @Singleton
    InMemorySpanExporter exporter() {
        return InMemorySpanExporter.create();
    }
}
