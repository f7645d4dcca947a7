package io.github.mongolock.cdi;

import com.mongodb.client.MongoClient;
import io.github.mongolock.LeadershipGranted;
import io.github.mongolock.LeadershipRevoked;
import io.github.mongolock.LockEvent;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockTracing;
import io.github.mongolock.PermitEvent;
import io.github.mongolock.ReadWriteEvent;
import io.github.mongolock.memory.InMemoryLockManager;
import io.github.mongolock.memory.InMemoryLocks;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import java.lang.System.Logger.Level;

/**
 * Creates the instances behind the application's {@code LockManager} and {@link Leaderships} beans from their
 * settings, with the container's lookup, whichever extension registered the beans. Stateless.
 */
final class ApplicationBeans {

    private static final System.Logger LOG = System.getLogger(ApplicationBeans.class.getName());

    private ApplicationBeans() {
    }

    /**
     * The manager, its events fired as CDI events and its metrics recorded where OpenTelemetry is present.
     *
     * @param noted the application's {@code @Default MongoClient} bean as discovered, if known (see
     *              {@link #applicationClient})
     */
    static ApplicationLockManager createManager(LockManagerSettings settings, Instance<Object> lookup, Bean<?> noted) {
        BeanManager beans = lookup.select(BeanManager.class).get();
        if (settings.inMemory()) {
            return createInMemoryManager(settings, lookup, eventBridge(beans));
        }
        MongoClient client = settings.usesClientBean() ? applicationClient(lookup, beans, noted) : null;
        LockEventBridge events = eventBridge(beans);
        LockMetrics metrics = settings.metrics() ? TelemetryLookup.metrics(lookup) : LockMetrics.NONE;
        LockTracing tracing = settings.tracing() ? TelemetryLookup.tracing(lookup) : LockTracing.NONE;
        ApplicationLockManager manager = new ApplicationLockManager(settings.newManager(client, events, metrics, tracing),
                events, metrics);
        LOG.log(Level.INFO, "mongolock LockManager started: instance " + manager.instanceId() + ", "
                + (settings.usesClientBean() ? "the application's MongoClient bean" : "mongolock.uri")
                + ", collection " + settings.collection() + ", lease " + settings.leaseTime() + ", wait " + settings.waitTime()
                + ", metrics " + (metrics == LockMetrics.NONE ? "off" : metrics)
                + ", tracing " + (tracing == LockTracing.NONE ? "off" : tracing));
        return manager;
    }

    /** The manager's lock and semaphore events, fired as CDI events. */
    private static LockEventBridge eventBridge(BeanManager beans) {
        return new LockEventBridge(beans.getEvent().select(LockEvent.class), beans.getEvent().select(PermitEvent.class),
                beans.getEvent().select(ReadWriteEvent.class));
    }

    /**
     * With {@code mongolock.uri=memory:}: a manager on the application's {@link InMemoryLocks} bean, through which a
     * test reaches the controls. Where no such bean was registered (in Quarkus, when the build did not see
     * {@code memory:}), on an in-memory store of its own, closed with it.
     */
    private static ApplicationLockManager createInMemoryManager(LockManagerSettings settings, Instance<Object> lookup,
                                                                LockEventBridge events) {
        Instance<InMemoryLocks> shared = lookup.select(InMemoryLocks.class);
        InMemoryLocks locks = shared.isResolvable() ? shared.get() : new InMemoryLocks();
        InMemoryLockManager node = settings.newInMemoryManager(locks, events);
        Runnable close = shared.isResolvable() ? node::close : locks::close;
        LOG.log(Level.INFO, "mongolock LockManager started: instance " + node.instanceId() + ", in memory ("
                + LockManagerSettings.URI + "=" + InMemoryLocks.URI + ", no MongoDB), lease " + settings.leaseTime()
                + ", wait " + settings.waitTime());
        return new ApplicationLockManager(node, close, events);
    }

    /** Joins the configured elections over the application's LockManager bean (created first, if need be). */
    static ApplicationLeaderships createLeaderships(LeadershipSettings settings, Instance<Object> lookup) {
        LockManager locks = lookup.select(LockManager.class).get();
        BeanManager beans = lookup.select(BeanManager.class).get();
        return new ApplicationLeaderships(locks, settings, beans.getEvent().select(LeadershipGranted.class),
                beans.getEvent().select(LeadershipRevoked.class));
    }

    /**
     * The application's {@code @Default MongoClient} bean. Payara (GlassFish) resolves a synthetic bean's
     * lookup in the library jar's bean archive, which does not see beans in {@code WEB-INF/classes}
     * (seen with Payara Micro 6.2025.10; {@code CDI.current()} fails there too): the bean noted while
     * beans were discovered is then asked for its reference directly.
     */
    private static MongoClient applicationClient(Instance<Object> lookup, BeanManager beans, Bean<?> noted) {
        Instance<MongoClient> fromLibrary = lookup.select(MongoClient.class);
        if (fromLibrary.isResolvable() || noted == null) {
            return fromLibrary.get();
        }
        return (MongoClient) beans.getReference(noted, MongoClient.class, beans.createCreationalContext(noted));
    }
}
