package io.github.mongolock.cdi;

import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockTracing;
import io.github.mongolock.otel.OpenTelemetryLockMetrics;
import io.github.mongolock.otel.OpenTelemetryLockTracing;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.inject.Instance;

/** Loaded only where the OpenTelemetry API is present ({@link TelemetryLookup} checks first). */
final class OpenTelemetryBinding {

    private OpenTelemetryBinding() {
    }

    static LockMetrics metrics(Instance<Object> lookup) {
        return OpenTelemetryLockMetrics.of(openTelemetry(lookup));
    }

    static LockTracing tracing(Instance<Object> lookup) {
        return OpenTelemetryLockTracing.of(openTelemetry(lookup));
    }

    private static OpenTelemetry openTelemetry(Instance<Object> lookup) {
        Instance<OpenTelemetry> bean = lookup.select(OpenTelemetry.class);
        return bean.isResolvable() ? bean.get() : GlobalOpenTelemetry.get();
    }
}
