package io.github.mongolock.cdi;

import io.github.mongolock.LockMetrics;
import io.github.mongolock.otel.OpenTelemetryLockMetrics;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.inject.Instance;

/** Loaded only where the OpenTelemetry API is present ({@link TelemetryLookup} checks first). */
final class OpenTelemetryBinding {

    private OpenTelemetryBinding() {
    }

    static LockMetrics metrics(Instance<Object> lookup) {
        Instance<OpenTelemetry> bean = lookup.select(OpenTelemetry.class);
        OpenTelemetry openTelemetry = bean.isResolvable() ? bean.get() : GlobalOpenTelemetry.get();
        return OpenTelemetryLockMetrics.of(openTelemetry);
    }
}
