package io.github.mongolock.cdi;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

/**
 * The application's {@code OpenTelemetry} bean in a test container, as MicroProfile Telemetry and Quarkus provide one:
 * it hands out {@link #sdk}, which each test sets to a fresh SDK before it starts its container, so no test sees
 * another's spans or points (test classes run one after the other).
 */
@ApplicationScoped
public class ApplicationTelemetry {

    /** The SDK the next container's bean hands out. */
    static volatile OpenTelemetrySdk sdk;

    @Produces
    @ApplicationScoped
    OpenTelemetry openTelemetry() {
        return sdk;
    }
}
