package io.github.mongolock.cdi;

import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;

/**
 * MicroProfile Health readiness check {@code mongolock}: UP while the MongoDB driver sees a server it
 * can write locks to, DOWN while it does not. It answers from the driver's monitor without any I/O,
 * so a health probe never blocks on an unreachable database; the view is refreshed every driver
 * heartbeat (10 s by default) and at once when a lock operation fails.
 *
 * <p>Not discovered (excluded in beans.xml, since it needs the Health API): registered as an
 * {@code @ApplicationScoped @Readiness} bean by {@link ReadinessCheckRegistration} only where the
 * Health API is present.
 */
public class MongoLockReadinessCheck implements HealthCheck {

    static final String NAME = "mongolock";

    @Inject
    LockStoreStatus store;

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named(NAME)
                .status(store.storeAvailable())
                .withData("instance-id", store.instanceId())
                .withData("push-wake-up", store.pushWakeUp())
                .build();
    }
}
