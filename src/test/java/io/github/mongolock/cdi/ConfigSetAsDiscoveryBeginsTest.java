package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockInfo;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.interceptor.Interceptor;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A runtime may put the application's configuration in place only once discovery has begun: Helidon's
 * {@code @HelidonTest} support does it in its own {@code BeforeBeanDiscovery} observer, at the default priority,
 * after a bootstrap configuration without the application's sources. The order of two observers of the same
 * priority is not defined, so mongolock read its settings before or after it depending on the run: the Helidon
 * example's tests failed with MONGOLOCK-CDI-009 (no {@code mongolock.uri}) in a build whose Maven repository sat at
 * another path, and passed in the next. mongolock now reads its settings after {@code BeforeBeanDiscovery}, once every
 * observer of it has run. Here the configuration is put in place by an observer that surely runs after mongolock's
 * default-priority one; before the fix this deployment failed with MONGOLOCK-CDI-009.
 */
@ExtendWith(MongoBackend.class)
class ConfigSetAsDiscoveryBeginsTest {

    /** Registers the application's configuration for the context class loader once discovery has begun. */
    public static class ConfigSetAsDiscoveryBegins implements Extension {
        private final Config application;

        public ConfigSetAsDiscoveryBegins(Config application) {
            this.application = application;
        }

        void putInPlace(@Observes @Priority(Interceptor.Priority.APPLICATION + 600) BeforeBeanDiscovery discovery) {
            ConfigProviderResolver resolver = ConfigProviderResolver.instance();
            ClassLoader context = Thread.currentThread().getContextClassLoader();
            resolver.releaseConfig(resolver.getConfig(context)); // the bootstrap configuration, as Helidon's
            resolver.registerConfig(application, context);
        }
    }

    @Test
    void settingsPutInPlaceDuringBeforeBeanDiscoveryAreRead(TestMongo mongo) throws Exception {
        ConfigProviderResolver resolver = ConfigProviderResolver.instance();
        WeldNodes.inApplication(application -> {
            Config bootstrap = WeldNodes.config(Map.of("bootstrap", "true")); // no mongolock.uri: deployment would fail
            resolver.registerConfig(bootstrap, application);
            Config config = WeldNodes.config(WeldNodes.settings(mongo, mongo.freshDatabase(),
                    "mongolock.instance-id", "configured-late"));
            try (WeldContainer node = new Weld("config-set-as-discovery-begins")
                    .disableDiscovery()
                    .property("org.jboss.weld.se.shutdownHook", false)
                    .addBeanClasses(LifecycleTest.Task.class)
                    .addExtension(new MongoLockExtension())
                    .addExtension(new ConfigSetAsDiscoveryBegins(config))
                    .initialize()) {
                LockInfo held = node.select(LifecycleTest.Task.class).get().run("late").orElseThrow();
                assertEquals(1, held.holdCount());
                assertTrue(held.owner().startsWith("configured-late:"), "the instance id of the configuration put in"
                        + " place during discovery: " + held.owner());
            } finally {
                resolver.releaseConfig(resolver.getConfig(application));
            }
        });
    }
}
