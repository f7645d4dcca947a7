package io.github.mongolock.cdi;

import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.MongoLockManager;
import java.time.Duration;
import java.util.Optional;

/**
 * The instance behind the application's {@code @ApplicationScoped LockManager} bean: a
 * {@link MongoLockManager} built from configuration, plus the bridge that fires its events. Closed
 * by the container at shutdown: events are muted, renewals stop and held locks are released; an
 * application-owned {@code MongoClient} is left open. Thread-safe.
 *
 * <p>Not final, and with a constructor of no arguments, only because Quarkus's client proxy for the
 * bean is a subclass of it ({@link MongoLockBuildExtension}); the proxy's own fields stay null.
 */
class ApplicationLockManager implements LockManager, LockStoreStatus {

    private final MongoLockManager delegate;
    private final LockEventBridge events;
    private final LockMetrics metrics;

    /** For the client proxy only (see the class comment): a proxy forwards every call. */
    ApplicationLockManager() {
        this(null, null, null);
    }

    ApplicationLockManager(MongoLockManager delegate, LockEventBridge events, LockMetrics metrics) {
        this.delegate = delegate;
        this.events = events;
        this.metrics = metrics;
    }

    @Override
    public LockSession acquire(String name) {
        return delegate.acquire(name);
    }

    @Override
    public LockSession acquire(String name, Duration waitFor) {
        return delegate.acquire(name, waitFor);
    }

    @Override
    public LockSession acquire(String name, LockOptions options) {
        return delegate.acquire(name, options);
    }

    @Override
    public Optional<LockSession> tryAcquire(String name) {
        return delegate.tryAcquire(name);
    }

    @Override
    public Optional<LockSession> tryAcquire(String name, LockOptions options) {
        return delegate.tryAcquire(name, options);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return delegate.inspect(name);
    }

    @Override
    public String instanceId() {
        return delegate.instanceId();
    }

    @Override
    public boolean storeAvailable() {
        return delegate.isStoreAvailable();
    }

    @Override
    public String pushWakeUp() {
        return delegate.pushWakeUpStatus().name();
    }

    void close() {
        events.mute();
        delegate.close();
        System.getLogger(ApplicationLockManager.class.getName()).log(System.Logger.Level.INFO,
                "mongolock LockManager closed: instance " + delegate.instanceId());
        if (metrics instanceof AutoCloseable instruments) {
            try {
                instruments.close(); // its gauges' callbacks would outlive a redeployed application
            } catch (Exception broken) {
                System.getLogger(ApplicationLockManager.class.getName()).log(System.Logger.Level.WARNING,
                        "mongolock: closing the metrics failed", broken);
            }
        }
    }

    @Override
    public String toString() {
        return "mongolock LockManager (instance " + delegate.instanceId() + ")";
    }
}
