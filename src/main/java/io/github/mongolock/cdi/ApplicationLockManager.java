package io.github.mongolock.cdi;

import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockSet;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.memory.InMemoryLockManager;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The instance behind the application's {@code @ApplicationScoped LockManager} bean: a
 * {@link MongoLockManager} built from configuration (or, with {@code mongolock.uri=memory:}, an
 * {@link InMemoryLockManager}), plus the bridge that fires its events. Closed
 * by the container at shutdown: events are muted, renewals stop and held locks are released; an
 * application-owned {@code MongoClient} is left open. Thread-safe.
 *
 * <p>Not final, and with a constructor of no arguments, only because Quarkus's client proxy for the
 * bean is a subclass of it ({@link MongoLockBuildExtension}); the proxy's own fields stay null.
 */
class ApplicationLockManager implements LockManager, LockStoreStatus {

    private final LockManager delegate;
    private final StoreStatus status;
    private final Runnable closeDelegate;
    private final LockEventBridge events;
    private final LockMetrics metrics;

    /** The status of the store a manager runs on, as the readiness check shows it. */
    private record StoreStatus(String instanceId, BooleanSupplier available, Supplier<String> pushWakeUp) {
    }

    /** For the client proxy only (see the class comment): a proxy forwards every call. */
    ApplicationLockManager() {
        this(null, null, null, null, null);
    }

    ApplicationLockManager(MongoLockManager delegate, LockEventBridge events, LockMetrics metrics) {
        this(delegate, new StoreStatus(delegate.instanceId(), delegate::isStoreAvailable,
                () -> delegate.pushWakeUpStatus().name()), delegate::close, events, metrics);
    }

    /** @param close closes {@code delegate}, and whatever was created for it alone */
    ApplicationLockManager(InMemoryLockManager delegate, Runnable close, LockEventBridge events) {
        this(delegate, new StoreStatus(delegate.instanceId(), delegate::isStoreAvailable,
                () -> delegate.pushWakeUpStatus().name()), close, events, LockMetrics.NONE);
    }

    private ApplicationLockManager(LockManager delegate, StoreStatus status, Runnable closeDelegate,
                                   LockEventBridge events, LockMetrics metrics) {
        this.delegate = delegate;
        this.status = status;
        this.closeDelegate = closeDelegate;
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
    public io.github.mongolock.Permits permits(String name, int limit) {
        return delegate.permits(name, limit);
    }

    @Override
    public io.github.mongolock.ReadWriteLock readWriteLock(String name) {
        return delegate.readWriteLock(name);
    }

    @Override
    public LockSet acquireAll(Collection<String> names, LockOptions options) {
        return delegate.acquireAll(names, options);
    }

    @Override
    public Optional<LockSet> tryAcquireAll(Collection<String> names, LockOptions options) {
        return delegate.tryAcquireAll(names, options);
    }

    @Override
    public String instanceId() {
        return status.instanceId();
    }

    @Override
    public boolean storeAvailable() {
        return status.available().getAsBoolean();
    }

    @Override
    public String pushWakeUp() {
        return status.pushWakeUp().get();
    }

    void close() {
        events.mute();
        closeDelegate.run();
        System.getLogger(ApplicationLockManager.class.getName()).log(System.Logger.Level.INFO,
                "mongolock LockManager closed: instance " + status.instanceId());
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
        return "mongolock LockManager (instance " + status.instanceId() + ")";
    }
}
