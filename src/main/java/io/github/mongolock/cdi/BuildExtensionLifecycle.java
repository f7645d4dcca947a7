package io.github.mongolock.cdi;

import io.github.mongolock.memory.InMemoryLocks;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;

/**
 * The application's start and stop, where {@link MongoLockBuildExtension} registered mongolock's beans (it makes
 * this class a bean there; {@code beans.xml} keeps Weld from discovering it, {@link MongoLockExtension} observes
 * the same events itself). Stateless.
 */
class BuildExtensionLifecycle {

    /**
     * Reads the configuration (a problem fails the startup), creates the manager, so connection settings take
     * effect, and readiness reports, before the first call, and joins the configured elections.
     *
     * <p>On {@link Startup}, not {@code @Initialized(ApplicationScoped.class)}: Quarkus fires the latter during its
     * static initialisation, before beans made at runtime init exist, and the manager looks up the application's
     * {@code OpenTelemetry} bean (quarkus-opentelemetry's is such a bean: looking it up then failed the startup with
     * "Synthetic bean instance ... not initialized yet"). Quarkus fires {@code Startup} at runtime, before serving.
     *
     * @param inMemory unused here: this injection point keeps Quarkus from removing the {@link InMemoryLocks} bean
     *                 (registered with {@code mongolock.uri=memory:}) as unused where no class injects it, since the
     *                 manager's creator only looks it up; then the manager runs on it, and a test can look it up too
     */
    void start(@Observes Startup started, MongoLockConfiguration configuration,
               LockStoreStatus manager, Instance<Leaderships> leaderships, Instance<InMemoryLocks> inMemory) {
        manager.instanceId(); // the first call on the client proxy creates the manager
        if (!configuration.leadership().elections().isEmpty()) {
            leaderships.get().names(); // created, it joins the elections
        }
    }

    /** Leaves the elections while the beans observing their events still exist. */
    void stop(@Observes @BeforeDestroyed(ApplicationScoped.class) Object stopping, BeanManager beans) {
        ApplicationLifecycle.leaveElections(beans, bean -> bean.getTypes().contains(Leaderships.class));
    }
}
