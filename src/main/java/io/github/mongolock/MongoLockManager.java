package io.github.mongolock;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoNamespace;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.github.mongolock.core.LockArguments;
import io.github.mongolock.core.LockCoordinator;
import io.github.mongolock.core.MonotonicClock;
import io.github.mongolock.core.ReleaseFeed;
import io.github.mongolock.mongo.MongoReleaseFeed;
import io.github.mongolock.mongo.IdleLockCleaner;
import io.github.mongolock.mongo.MongoLockStore;
import io.github.mongolock.mongo.RedactedUri;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The plain-Java entry point: a {@link LockManager} whose locks live in a MongoDB collection, one
 * document per lock name (shape in {@link MongoLockStore}). The CDI integration builds on it.
 *
 * <pre>{@code
 * try (MongoLockManager locks = MongoLockManager.builder()
 *         .uri("mongodb://db1,db2,db3/?replicaSet=rs0")
 *         .database("app")
 *         .build();
 *      LockSession lock = locks.acquire("invoice-run")) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Thread-safe; meant to be one per application. Each manager has its own renewal thread
 * (renewing all its leases in a few round trips) and its own identity: two managers in one JVM
 * exclude each other like two machines do.
 */
public final class MongoLockManager implements LockManager, AutoCloseable {

    public static final String DEFAULT_COLLECTION = "locks";
    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);
    public static final Duration DEFAULT_WAIT_TIME = Duration.ofSeconds(10);
    public static final Duration DEFAULT_STORE_TIMEOUT = MongoLockStore.DEFAULT_TIMEOUT;
    /** Lock documents left free this long are removed (their tokens live on in the collection's token floor). */
    public static final Duration DEFAULT_IDLE_LOCK_AGE = Duration.ofDays(1);
    /** How often the managers of a collection, together, look for idle lock documents. */
    public static final Duration DEFAULT_IDLE_CHECK_INTERVAL = Duration.ofHours(1);

    private final LockCoordinator coordinator;
    private final MongoClient client;
    private final boolean ownsClient;
    private final String instanceId;
    private final IdleLockCleaner.Schedule idleCleanUp;

    private MongoLockManager(LockCoordinator coordinator, MongoClient client, boolean ownsClient, String instanceId,
                             IdleLockCleaner.Schedule idleCleanUp) {
        this.coordinator = coordinator;
        this.client = client;
        this.ownsClient = ownsClient;
        this.instanceId = instanceId;
        this.idleCleanUp = idleCleanUp;
    }

    public static Builder builder() {
        return new Builder();
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

    /**
     * The leased semaphore {@code name} with at most {@code limit} permits held at once across every manager (see
     * {@link Permits}). Nothing is written until its first acquire; a semaphore that exists with another limit is
     * refused then, with both limits named.
     *
     * @throws LockConfigurationException when the name breaks the naming rules or the limit is below 1
     */
    @Override
    public Permits permits(String name, int limit) {
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

    /** The configured (or generated) instance id: the first part of every owner this manager writes. */
    public String instanceId() {
        return instanceId;
    }

    /**
     * Whether the driver currently knows a MongoDB server it can write locks to. Costs no I/O: it is
     * the view of the driver's server monitor, refreshed every heartbeat (10 s by default,
     * {@code heartbeatFrequencyMS}) and at once when an operation fails. Backs the readiness check.
     */
    public boolean isStoreAvailable() {
        return client.getClusterDescription().hasWritableServer();
    }

    /** What the push wake-up is doing: {@code IDLE} until this manager first waits for a lock held elsewhere. */
    public ReleaseFeed.Status pushWakeUpStatus() {
        return coordinator.releaseFeedStatus();
    }

    /**
     * The owner of a lock the calling thread is inside (one of them if several), else the prefix every
     * owner of this manager starts with.
     *
     * @deprecated owners are per acquisition: use {@link LockSession#owner()}
     */
    @Deprecated
    public String currentOwner() {
        return coordinator.currentOwner();
    }

    /**
     * Refuses new acquisitions, waits for the store calls under way, stops renewals, releases every
     * lock this manager still holds, then closes the client if the builder created it. When it returns,
     * no lock of this manager is held in MongoDB (except those MongoDB could not be told about, which
     * are logged and free themselves when their leases run out). Works on an interrupted thread; the
     * interrupt flag is kept. Idempotent.
     */
    @Override
    public void close() {
        idleCleanUp.close();
        try {
            coordinator.close();
        } finally {
            if (ownsClient) {
                // The driver refuses to close its pool on an interrupted thread, leaking the client.
                boolean interrupted = Thread.interrupted();
                try {
                    client.close();
                } finally {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }
    }

    /** Collects the settings; {@link #build()} checks them all and names the first one that is wrong. */
    public static final class Builder {
        private MongoClient client;
        private String uri;
        private String database;
        private String collection = DEFAULT_COLLECTION;
        private Duration leaseTime = DEFAULT_LEASE_TIME;
        private Duration waitTime = DEFAULT_WAIT_TIME;
        private Duration storeTimeout = DEFAULT_STORE_TIMEOUT;
        private String instanceId;
        private boolean pushWakeUp = true;
        private Duration idleLockAge = DEFAULT_IDLE_LOCK_AGE;
        private Duration idleCheckInterval = DEFAULT_IDLE_CHECK_INTERVAL;
        private final List<LockListener> listeners = new ArrayList<>();
        private LockMetrics metrics = LockMetrics.NONE;
        private LockTracing tracing = LockTracing.NONE;

        private Builder() {
        }

        /** An application-owned client; the manager never closes it. Excludes {@link #uri(String)}. */
        public Builder client(MongoClient client) {
            this.client = Objects.requireNonNull(client, "client");
            return this;
        }

        /** A connection string; the manager creates the client and closes it on {@link #close()}. Excludes {@link #client(MongoClient)}. */
        public Builder uri(String uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
            return this;
        }

        /** The database of the lock collection; defaults to the database named in the URI, if any. */
        public Builder database(String database) {
            this.database = Objects.requireNonNull(database, "database");
            return this;
        }

        /** The lock collection; default {@value #DEFAULT_COLLECTION}. */
        public Builder collection(String collection) {
            this.collection = Objects.requireNonNull(collection, "collection");
            return this;
        }

        /** How long a lease lasts without renewal, so how long a crashed holder blocks others; default PT30S. */
        public Builder leaseTime(Duration leaseTime) {
            this.leaseTime = Objects.requireNonNull(leaseTime, "leaseTime");
            return this;
        }

        /** How long {@link LockManager#acquire(String)} waits; default PT10S. Zero: one attempt. */
        public Builder waitTime(Duration waitTime) {
            this.waitTime = Objects.requireNonNull(waitTime, "waitTime");
            return this;
        }

        /**
         * Bounds every MongoDB call of the manager (acquire, release, renewal, the change stream), whatever
         * client it uses, through the driver's client-side operation timeout: a call past it fails with
         * {@link LockStoreException}. For a client created from {@link #uri(String)} it is also the server
         * selection, connect and socket read timeout where the URI does not set them. Default PT10S; at least 1 ms.
         */
        public Builder storeTimeout(Duration storeTimeout) {
            this.storeTimeout = Objects.requireNonNull(storeTimeout, "storeTimeout");
            return this;
        }

        /** A readable label for this manager's owners (e.g. the pod name); default {@code <host>-<pid>-<random>}. */
        public Builder instanceId(String instanceId) {
            this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
            return this;
        }

        /**
         * Whether waiters on locks held by other machines are woken by a MongoDB change stream (one per
         * manager, opened when this manager first waits for such a lock) instead of by polling alone;
         * default true. Needs a replica set; elsewhere it falls back to polling, logged once.
         */
        public Builder pushWakeUp(boolean pushWakeUp) {
            this.pushWakeUp = pushWakeUp;
            return this;
        }

        /**
         * Lock documents left free at least this long are removed, so that names used once (a lock per record)
         * do not pile up; fencing tokens still never go back (a name created again starts above the highest
         * token removed). Default P1D; {@code PT0S} turns the clean-up off for this manager. See
         * {@link io.github.mongolock.mongo.IdleLockCleaner}.
         */
        public Builder idleLockAge(Duration idleLockAge) {
            this.idleLockAge = Objects.requireNonNull(idleLockAge, "idleLockAge");
            return this;
        }

        /**
         * How often the managers of one collection, together, look for idle lock documents: the first whose
         * turn it is cleans up (at most 10,000 documents per interval), the others skip. Default PT1H.
         */
        public Builder idleCheckInterval(Duration idleCheckInterval) {
            this.idleCheckInterval = Objects.requireNonNull(idleCheckInterval, "idleCheckInterval");
            return this;
        }

        /**
         * Where this manager reports acquisitions, waits, holds, lost leases and store failures, e.g.
         * {@code OpenTelemetryLockMetrics.of(openTelemetry)}. Default: {@link LockMetrics#NONE}.
         */
        public Builder metrics(LockMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * Where this manager reports each acquire call's wait as a span, e.g.
         * {@code OpenTelemetryLockTracing.of(openTelemetry)}. Default: {@link LockTracing#NONE} (never called).
         */
        public Builder tracing(LockTracing tracing) {
            this.tracing = Objects.requireNonNull(tracing, "tracing");
            return this;
        }

        /** Told of every acquisition, release and lost lease of this manager. */
        public Builder listener(LockListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Checks every setting given so far as {@link #build()} does, but creates no client and connects
         * nowhere: for validating a configuration early (e.g. while an application deploys). Whether a
         * connection was given is left to {@link #build()}.
         *
         * @throws LockConfigurationException naming the setting and value that are wrong
         */
        public Builder validate() {
            checkArguments();
            checkedDatabase(uri == null ? null : parse(uri));
            return this;
        }

        private void checkArguments() {
            LockArguments.checkLease(leaseTime, "leaseTime");
            LockArguments.checkWait(waitTime, "waitTime");
            LockArguments.storeTimeoutProblem(storeTimeout).ifPresent(rule -> {
                throw new LockConfigurationException("storeTimeout = " + storeTimeout + " is not valid: " + rule);
            });
            if (instanceId != null) {
                checkInstanceId(instanceId);
            }
            if (idleLockAge.isNegative()) {
                throw new LockConfigurationException("idleLockAge = " + idleLockAge + " is negative: give PT0S (off) or more, e.g. P1D.");
            }
            if (idleCheckInterval.isNegative() || idleCheckInterval.isZero()) {
                throw new LockConfigurationException("idleCheckInterval = " + idleCheckInterval + " must be positive, e.g. PT1H.");
            }
        }

        /** The lock collection's database (given, or named in the URI), checked with the collection name. */
        private String checkedDatabase(ConnectionString connection) {
            String databaseName = database != null ? database : connection != null ? connection.getDatabase() : null;
            if (databaseName == null) {
                throw new LockConfigurationException("No database given for the lock collection: call database(\"...\")"
                        + " or name one in the URI (mongodb://host/<database>).");
            }
            checkNamespace(databaseName, collection);
            return databaseName;
        }

        /** @throws LockConfigurationException naming the setting and value that are wrong */
        public MongoLockManager build() {
            if ((client == null) == (uri == null)) {
                throw new LockConfigurationException(client == null
                        ? "No MongoDB connection given: call uri(\"mongodb://...\") or client(mongoClient) on the builder."
                        : "Both client(...) and uri(...) were given: use one of them.");
            }
            checkArguments();
            ConnectionString connection = uri == null ? null : parse(uri);
            String databaseName = checkedDatabase(connection);
            String id = instanceId == null ? defaultInstanceId() : instanceId;
            MongoClient ownedClient = connection == null ? null : MongoClients.create(settings(connection, storeTimeout));
            MongoClient effective = ownedClient != null ? ownedClient : client;
            MongoLockStore store = new MongoLockStore(effective.getDatabase(databaseName), collection, storeTimeout, metrics);
            // The nonce makes owners unique even when several nodes are given the same instance id: 122 random
            // bits, so no two managers ever draw the same one (32 bits could, among many restarts of many nodes).
            String ownerPrefix = id + ":" + UUID.randomUUID().toString().replace("-", "");
            ReleaseFeed feed = pushWakeUp ? new MongoReleaseFeed(store.collection(), "mongolock-release-feed-" + ownerPrefix)
                    : ReleaseFeed.NONE;
            LockCoordinator coordinator = new LockCoordinator(store, ownerPrefix, leaseTime, waitTime,
                    MonotonicClock.system(), listeners, feed, metrics, tracing);
            IdleLockCleaner.Schedule idleCleanUp = idleLockAge.isZero() ? () -> { }
                    : new IdleLockCleaner(store).scheduleEvery(idleCheckInterval, idleLockAge, ownerPrefix);
            return new MongoLockManager(coordinator, effective, ownedClient != null, id, idleCleanUp);
        }

        private static ConnectionString parse(String uri) {
            try {
                return new ConnectionString(uri);
            } catch (IllegalArgumentException invalid) {
                RedactedUri shown = RedactedUri.of(uri);
                String message = "MongoDB URI \"" + shown + "\" is not valid: " + shown.refusal(invalid)
                        + " Expected mongodb://host[:port][/database][?options] or mongodb+srv://...";
                throw shown.safeCause(invalid).map(cause -> new LockConfigurationException(message, cause))
                        .orElseGet(() -> new LockConfigurationException(message));
            }
        }

        private static MongoClientSettings settings(ConnectionString connection, Duration timeout) {
            int millis = (int) Math.min(timeout.toMillis(), Integer.MAX_VALUE);
            MongoClientSettings.Builder settings = MongoClientSettings.builder().applyConnectionString(connection);
            if (connection.getServerSelectionTimeout() == null) {
                settings.applyToClusterSettings(cluster -> cluster.serverSelectionTimeout(millis, TimeUnit.MILLISECONDS));
            }
            if (connection.getConnectTimeout() == null) {
                settings.applyToSocketSettings(socket -> socket.connectTimeout(millis, TimeUnit.MILLISECONDS));
            }
            if (connection.getSocketTimeout() == null) {
                settings.applyToSocketSettings(socket -> socket.readTimeout(millis, TimeUnit.MILLISECONDS));
            }
            return settings.build();
        }

        private static void checkNamespace(String databaseName, String collectionName) {
            try {
                MongoNamespace.checkDatabaseNameValidity(databaseName);
            } catch (IllegalArgumentException invalid) {
                throw new LockConfigurationException("Database name \"" + databaseName + "\" is not valid: "
                        + invalid.getMessage(), invalid);
            }
            LockArguments.collectionProblem(collectionName).ifPresent(rule -> {
                throw new LockConfigurationException("Collection name \"" + collectionName + "\" is not valid: " + rule);
            });
        }

        private static String checkInstanceId(String id) {
            LockArguments.instanceIdProblem(id).ifPresent(rule -> {
                throw new LockConfigurationException("instanceId \"" + id + "\" is not valid: " + rule);
            });
            return id;
        }

        private static String defaultInstanceId() {
            String host = System.getenv("HOSTNAME");
            if (host == null || host.isBlank()) {
                host = System.getenv("COMPUTERNAME");
            }
            if (host == null || host.isBlank()) {
                host = "host";
            }
            return host + "-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 4);
        }
    }
}
