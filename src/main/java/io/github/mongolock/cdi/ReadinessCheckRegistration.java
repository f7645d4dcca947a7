package io.github.mongolock.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import java.lang.System.Logger.Level;

/**
 * Registers {@link MongoLockReadinessCheck} when the application can see the MicroProfile Health
 * API, and does nothing otherwise, so the library needs no Health dependency at run time. Its own
 * extension, so that looking for the API never touches the lock extension.
 */
public class ReadinessCheckRegistration implements Extension {

    private static final System.Logger LOG = System.getLogger(ReadinessCheckRegistration.class.getName());

    void register(@Observes BeforeBeanDiscovery discovery) {
        if (!OptionalApi.present(OptionalApi.HEALTH)) {
            LOG.log(Level.DEBUG, "mongolock: MicroProfile Health is absent, no readiness check registered");
            return;
        }
        discovery.addAnnotatedType(MongoLockReadinessCheck.class, MongoLockReadinessCheck.class.getName())
                .add(ApplicationScoped.Literal.INSTANCE)
                .add(org.eclipse.microprofile.health.Readiness.Literal.INSTANCE);
    }
}
