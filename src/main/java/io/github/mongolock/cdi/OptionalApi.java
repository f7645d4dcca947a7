package io.github.mongolock.cdi;

/**
 * Whether the application can see an API that mongolock uses only where present (MicroProfile Health,
 * OpenTelemetry): asked of the thread's context class loader, then of mongolock's own. Stateless.
 */
final class OptionalApi {

    static final String HEALTH = "org.eclipse.microprofile.health.HealthCheck";
    static final String OPENTELEMETRY = "io.opentelemetry.api.OpenTelemetry";

    private OptionalApi() {
    }

    /** Whether {@code className} can be loaded (it is not initialised). */
    static boolean present(String className) {
        ClassLoader[] loaders = {Thread.currentThread().getContextClassLoader(), OptionalApi.class.getClassLoader()};
        for (ClassLoader loader : loaders) {
            try {
                Class.forName(className, false, loader);
                return true;
            } catch (ClassNotFoundException | LinkageError absent) {
                // try the next loader
            }
        }
        return false;
    }
}
