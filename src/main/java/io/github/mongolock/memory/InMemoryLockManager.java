package io.github.mongolock.memory;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockException;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockListener;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockSet;
import io.github.mongolock.core.LockArguments;
import io.github.mongolock.core.LockCoordinator;
import io.github.mongolock.core.MonotonicClock;
import io.github.mongolock.core.ReleaseFeed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * One "node" of an {@link InMemoryLocks}: a {@link LockManager} whose locks live in the factory's
 * {@link InMemoryLockStore}. It is the very algorithm of {@code MongoLockManager} (the same
 * {@link LockCoordinator}: re-entry, fencing tokens, lease renewal every lease/3, minimum holds, local
 * hand-over, waiting and wake-up, events), on a store in this JVM instead of MongoDB. Its owners are
 * {@code <instance-id>:<random nonce>:<n>}, so two nodes exclude each other as two machines do.
 *
 * <p>Built by {@link InMemoryLocks#manager()}; closed by {@link #close()} or with its factory. Records no
 * metrics. Thread-safe.
 */
public final class InMemoryLockManager implements LockManager, AutoCloseable {

    /** How long a control waits for a holder to be told of the loss it caused. */
    private static final long TELL_TIMEOUT_MILLIS = 5_000;

    private final LockCoordinator coordinator;
    private final String instanceId;
    private final String ownerPrefix;
    private final LeaseLossLog losses;

    private InMemoryLockManager(LockCoordinator coordinator, String instanceId, String ownerPrefix, LeaseLossLog losses) {
        this.coordinator = coordinator;
        this.instanceId = instanceId;
        this.ownerPrefix = ownerPrefix;
        this.losses = losses;
    }

    @Override
    public LockSession acquire(String name) {
        return coordinator.acquire(name);
    }

    @Override
    public LockSession acquire(String name, Duration waitFor) {
        return coordinator.acquire(name, waitFor);
    }

    @Override
    public LockSession acquire(String name, LockOptions options) {
        return coordinator.acquire(name, options);
    }

    @Override
    public Optional<LockSession> tryAcquire(String name) {
        return coordinator.tryAcquire(name);
    }

    @Override
    public Optional<LockSession> tryAcquire(String name, LockOptions options) {
        return coordinator.tryAcquire(name, options);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return coordinator.inspect(name);
    }

    @Override
    public io.github.mongolock.Permits permits(String name, int limit) {
        return coordinator.permits(name, limit);
    }

    @Override
    public io.github.mongolock.ReadWriteLock readWriteLock(String name) {
        return coordinator.readWriteLock(name);
    }

    @Override
    public LockSet acquireAll(Collection<String> names, LockOptions options) {
        return coordinator.acquireAll(names, options);
    }

    @Override
    public Optional<LockSet> tryAcquireAll(Collection<String> names, LockOptions options) {
        return coordinator.tryAcquireAll(names, options);
    }

    /** The instance id given to the builder (or generated): the first part of every owner this manager writes. */
    public String instanceId() {
        return instanceId;
    }

    /** Always true: the in-memory store cannot be unreachable. */
    public boolean isStoreAvailable() {
        return true;
    }

    /** What the push wake-up is doing: {@code IDLE} until this manager first waits for a lock held elsewhere. */
    public ReleaseFeed.Status pushWakeUpStatus() {
        return coordinator.releaseFeedStatus();
    }

    /** Whether {@code owner} is one of this manager's acquisitions. */
    boolean owns(String owner) {
        return ownerPrefix.equals(io.github.mongolock.core.LockStore.managerOf(owner));
    }

    /**
     * Makes this manager find out now, as it would at its next renewal, that the store no longer counts {@code owner}'s
     * lock as held under its session, and waits until it has told the holder (loss actions, then listeners). Nothing
     * to tell when {@code owner} is no acquisition this manager holds (already released, e.g. a lock kept for its
     * minimum hold after its holder let go).
     *
     * @throws LockException when the holder was not told within 5 s
     */
    void tellLoss(String name, String owner) {
        try {
            if (!coordinator.checkSessionsNow(owner)) {
                return;
            }
        } catch (LockException closed) {
            return; // a closed manager released its locks: it holds nothing to be told about
        }
        try {
            if (!losses.awaitLoss(owner, TELL_TIMEOUT_MILLIS)) {
                throw new LockException("The holder " + owner + " of lock \"" + name + "\" was not told of its lost lease within "
                        + TELL_TIMEOUT_MILLIS + " ms: is its manager closed or its renewal thread stuck?");
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new io.github.mongolock.LockInterruptedException("Interrupted while waiting for the holder of lock \""
                    + name + "\" to be told of its lost lease; the interrupt flag is kept.", interrupted);
        }
    }

    /**
     * Makes this manager find out now, as its next session check would, that the store no longer counts {@code owner}'s
     * permits of {@code name}, and waits until it has told the holder ({@code isHeld()} false, loss actions run).
     * Nothing to tell when {@code owner} is no open hold of this manager.
     *
     * @throws LockException when the holder was not told within 5 s
     */
    void tellPermitLoss(String name, String owner) {
        try {
            coordinator.checkPermitsNow(owner, TELL_TIMEOUT_MILLIS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new io.github.mongolock.LockInterruptedException("Interrupted while waiting for the holder of permits of"
                    + " semaphore \"" + name + "\" to be told of their loss; the interrupt flag is kept.", interrupted);
        }
    }

    /**
     * Releases every lock this manager holds, stops its renewals and its push wake-up; as
     * {@code MongoLockManager.close()}. Idempotent.
     */
    @Override
    public void close() {
        coordinator.close();
    }

    @Override
    public String toString() {
        return "in-memory LockManager (instance " + instanceId + ")";
    }

    /** Collects a manager's settings; {@link #build()} checks them and names the first one that is wrong. */
    public static final class Builder {
        private final InMemoryLocks factory;
        private String instanceId;
        private Duration leaseTime = InMemoryLocks.DEFAULT_LEASE_TIME;
        private Duration waitTime = InMemoryLocks.DEFAULT_WAIT_TIME;
        private final List<LockListener> listeners = new ArrayList<>();

        Builder(InMemoryLocks factory) {
            this.factory = factory;
        }

        /** A readable label for this manager's owners; default {@code memory-<n>}, n counting this factory's managers. */
        public Builder instanceId(String instanceId) {
            this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
            return this;
        }

        /** How long a lease lasts without renewal; default PT30S, as {@code MongoLockManager}'s. */
        public Builder leaseTime(Duration leaseTime) {
            this.leaseTime = Objects.requireNonNull(leaseTime, "leaseTime");
            return this;
        }

        /** How long {@link LockManager#acquire(String)} waits; default PT10S. Zero: one attempt. */
        public Builder waitTime(Duration waitTime) {
            this.waitTime = Objects.requireNonNull(waitTime, "waitTime");
            return this;
        }

        /** Told of every acquisition, release and lost lease of this manager. */
        public Builder listener(LockListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Builds the manager on the factory's store; the factory closes it when it closes.
         *
         * @throws LockConfigurationException naming the setting and value that are wrong
         */
        public InMemoryLockManager build() {
            LockArguments.checkLease(leaseTime, "leaseTime");
            LockArguments.checkWait(waitTime, "waitTime");
            String id = instanceId != null ? instanceId : factory.nextInstanceId();
            LockArguments.instanceIdProblem(id).ifPresent(rule -> {
                throw new LockConfigurationException("instanceId \"" + id + "\" is not valid: " + rule);
            });
            String ownerPrefix = id + ":" + UUID.randomUUID().toString().replace("-", "");
            LeaseLossLog losses = new LeaseLossLog();
            List<LockListener> all = new ArrayList<>(listeners);
            all.add(losses); // last: a control returns once every listener was told
            LockCoordinator coordinator = new LockCoordinator(factory.store(), ownerPrefix, leaseTime, waitTime,
                    MonotonicClock.system(), all, factory.store().releaseFeed());
            return factory.register(new InMemoryLockManager(coordinator, id, ownerPrefix, losses));
        }
    }
}
