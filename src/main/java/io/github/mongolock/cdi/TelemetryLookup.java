package io.github.mongolock.cdi;

import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockTracing;
import jakarta.enterprise.inject.Instance;

/**
 * Finds the application's OpenTelemetry, if it has the API: the {@code OpenTelemetry} bean that
 * MicroProfile Telemetry and Quarkus provide, else {@code GlobalOpenTelemetry} (an application's own
 * SDK, or the Java agent). Without the API, no metrics, no spans and no error: this class only names the API's
 * types through {@link OpenTelemetryBinding}, which is loaded once the API is known to be there.
 */
final class TelemetryLookup {

    private static final System.Logger LOG = System.getLogger(TelemetryLookup.class.getName());

    private TelemetryLookup() {
    }

    static LockMetrics metrics(Instance<Object> lookup) {
        if (!OptionalApi.present(OptionalApi.OPENTELEMETRY)) {
            LOG.log(System.Logger.Level.DEBUG, "mongolock: no OpenTelemetry API, no metrics");
            return LockMetrics.NONE;
        }
        return OpenTelemetryBinding.metrics(lookup);
    }

    static LockTracing tracing(Instance<Object> lookup) {
        if (!OptionalApi.present(OptionalApi.OPENTELEMETRY)) {
            LOG.log(System.Logger.Level.DEBUG, "mongolock: no OpenTelemetry API, no spans");
            return LockTracing.NONE;
        }
        return OpenTelemetryBinding.tracing(lookup);
    }
}
