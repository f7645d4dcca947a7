package io.github.mongolock.otel;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.Collection;

/**
 * An OpenTelemetry SDK with an in-memory metric reader and mongolock's metrics on it, one per test; and how the
 * metrics tests read back what was recorded.
 */
final class MetricsSdk implements AutoCloseable {

    final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build();
    final OpenTelemetryLockMetrics metrics = OpenTelemetryLockMetrics.of(sdk);

    static MetricData metric(Collection<MetricData> all, String name) {
        return all.stream().filter(m -> m.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " not recorded; got " + all.stream().map(MetricData::getName).toList()));
    }

    static HistogramPointData point(MetricData histogram, Attributes attributes) {
        return histogram.getHistogramData().getPoints().stream().filter(p -> p.getAttributes().equals(attributes))
                .findFirst().orElseThrow(() -> new AssertionError("no point " + attributes + " in " + histogram));
    }

    static long gauge(MetricData gauge, Attributes attributes) {
        return gauge.getLongGaugeData().getPoints().stream().filter(p -> p.getAttributes().equals(attributes))
                .mapToLong(LongPointData::getValue).sum();
    }

    @Override
    public void close() {
        metrics.close();
        sdk.close();
    }
}
