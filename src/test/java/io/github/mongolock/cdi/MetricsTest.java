package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.Locked;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * In a CDI container whose application has an {@code OpenTelemetry} bean (as MicroProfile Telemetry and
 * Quarkus provide), {@code @Locked} calls are measured under their name template, unless switched off.
 */
@ExtendWith(MongoBackend.class)
class MetricsTest {

    private static InMemoryMetricReader freshSdk() {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        ApplicationTelemetry.sdk = OpenTelemetrySdk.builder()
                .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build();
        return reader;
    }

    @ApplicationScoped
    public static class Charges {
        @Locked("account-{0}")
        public void charge(String account) {
        }
    }

    private static List<String> groups(Collection<MetricData> metrics, String name) {
        return metrics.stream().filter(m -> m.getName().equals(name))
                .flatMap(m -> m.getData().getPoints().stream())
                .map(p -> p.getAttributes().get(AttributeKey.stringKey("mongolock.lock.group")))
                .distinct().collect(Collectors.toList());
    }

    @Test
    void lockedCallsAreMeasuredByTemplateThroughTheApplicationsOpenTelemetry(TestMongo mongo) {
        InMemoryMetricReader reader = freshSdk();
        try (WeldContainer node = WeldNodes.start("metrics", WeldNodes.settings(mongo, mongo.freshDatabase()),
                ApplicationTelemetry.class, Charges.class)) {
            Charges charges = node.select(Charges.class).get();
            charges.charge("1");
            charges.charge("2");
            charges.charge("3");
        }
        Collection<MetricData> metrics = reader.collectAllMetrics();
        assertEquals(List.of("account-{0}"), groups(metrics, "mongolock.acquire.duration"), "one series for three accounts");
        assertEquals(List.of("account-{0}"), groups(metrics, "mongolock.hold.duration"));
        MetricData waits = metrics.stream().filter(m -> m.getName().equals("mongolock.acquire.duration")).findFirst()
                .orElseThrow();
        assertEquals(3, waits.getHistogramData().getPoints().iterator().next().getCount());
    }

    @Test
    void metricsCanBeSwitchedOff(TestMongo mongo) {
        InMemoryMetricReader reader = freshSdk();
        try (WeldContainer node = WeldNodes.start("no-metrics", WeldNodes.settings(mongo, mongo.freshDatabase(),
                "mongolock.metrics.enabled", "false"), ApplicationTelemetry.class, Charges.class)) {
            node.select(Charges.class).get().charge("1");
        }
        List<String> recorded = reader.collectAllMetrics().stream().map(MetricData::getName)
                .filter(name -> name.startsWith("mongolock.")).collect(Collectors.toList());
        assertTrue(recorded.isEmpty(), "nothing recorded with mongolock.metrics.enabled=false: " + recorded);
    }
}
