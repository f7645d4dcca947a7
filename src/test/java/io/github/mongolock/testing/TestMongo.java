package io.github.mongolock.testing;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.MongoDBContainer;

/**
 * The MongoDB the tests run against, chosen once per test JVM: {@code MONGOLOCK_TEST_URI} when set,
 * else FerretDB when the system property {@value #BACKEND_PROPERTY} is {@code ferretdb} (the build's
 * {@code ferretdb} test run sets it; see {@link FerretDbServer}), else a Testcontainers {@code mongo:7}
 * when Docker is available, else the in-process mongo-java-server stand-in bound to 127.0.0.1 on a free
 * port. Which one ran is printed.
 *
 * <p>Obtain it with {@link MongoBackend} (a JUnit extension) or {@link #shared(ExtensionContext)}.
 */
public final class TestMongo implements ExtensionContext.Store.CloseableResource, AutoCloseable {

    public enum Kind { EXTERNAL_URI, FERRETDB, TESTCONTAINERS, STAND_IN, STEPPED_CLOCK_STAND_IN }

    /** {@code -Dmongolock.test.backend=ferretdb} runs the tests against FerretDB. */
    public static final String BACKEND_PROPERTY = "mongolock.test.backend";

    private final Kind kind;
    private final String uri;
    private final MongoClient client;
    private final MongoServer standIn;
    private final MongoDBContainer container;
    private final SteppedClockStandIn steppedClock;
    private final FerretDbServer ferretDb;
    private Boolean evaluatesNow;
    private final AtomicInteger databases = new AtomicInteger();
    private final String runId = Long.toHexString(System.nanoTime() & 0xffffff);

    private TestMongo(Kind kind, String uri, MongoServer standIn, MongoDBContainer container) {
        this(kind, uri, standIn, container, null, null);
    }

    private TestMongo(Kind kind, String uri, MongoServer standIn, MongoDBContainer container,
                      SteppedClockStandIn steppedClock, FerretDbServer ferretDb) {
        this.kind = kind;
        this.uri = uri;
        this.standIn = standIn;
        this.container = container;
        this.steppedClock = steppedClock;
        this.ferretDb = ferretDb;
        this.client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(uri))
                .applyToClusterSettings(cluster -> cluster.serverSelectionTimeout(10, TimeUnit.SECONDS))
                .build());
        System.out.println("[mongolock tests] MongoDB backend: " + describe());
    }

    /** The JVM-wide instance, started on first use and stopped when the test run ends. */
    public static TestMongo shared(ExtensionContext context) {
        return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(TestMongo.class, key -> start(), TestMongo.class);
    }

    /** Starts a backend of its own (for tools outside JUnit); the caller closes it. */
    public static TestMongo start() {
        String external = System.getenv("MONGOLOCK_TEST_URI");
        if (external != null && !external.isBlank()) {
            return new TestMongo(Kind.EXTERNAL_URI, external, null, null);
        }
        String backend = System.getProperty(BACKEND_PROPERTY, "");
        if (backend.equals("ferretdb")) {
            return startFerretDb();
        }
        if (!backend.isEmpty()) {
            throw new IllegalArgumentException("-D" + BACKEND_PROPERTY + "=" + backend
                    + " is not a test backend: use ferretdb, or leave it unset for the default choice");
        }
        if (dockerAvailable()) {
            MongoDBContainer container = new MongoDBContainer("mongo:7");
            container.start();
            return new TestMongo(Kind.TESTCONTAINERS, container.getReplicaSetUrl(), null, container);
        }
        return startStandIn();
    }

    /** Always the stand-in, whatever else is available (e.g. for tests of the stand-in's own features). */
    public static TestMongo startStandIn() {
        MongoServer server = new MongoServer(new MemoryBackend());
        server.enableOplog();
        server.bind("127.0.0.1", 0);
        InetSocketAddress address = server.getLocalAddress();
        return new TestMongo(Kind.STAND_IN, "mongodb://127.0.0.1:" + address.getPort(), server, null);
    }

    /** FerretDB (see {@link FerretDbServer}), built first when its binary is not in the cache yet. */
    public static TestMongo startFerretDb() {
        FerretDbServer server = FerretDbServer.start(Path.of("target", "ferretdb"));
        try {
            return new TestMongo(Kind.FERRETDB, server.uri(), null, null, null, server);
        } catch (RuntimeException failed) {
            server.close();
            throw failed;
        }
    }

    /**
     * The stand-in in a JVM of its own whose wall clock the caller steps through {@link #steppedClock()}
     * (see {@link SteppedClockStandIn}: mongo-java-server's reads of the wall clock are redirected to an
     * offset clock in that JVM, nothing outside the build is needed); closing this stops it.
     */
    public static TestMongo startSteppedClock(Path workDir) {
        SteppedClockStandIn standIn;
        try {
            standIn = SteppedClockStandIn.start(workDir);
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot start the stepped-clock stand-in in " + workDir, failed);
        }
        try {
            return new TestMongo(Kind.STEPPED_CLOCK_STAND_IN, standIn.uri(), null, null, standIn, null);
        } catch (RuntimeException failed) {
            standIn.close();
            throw failed;
        }
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError noDocker) {
            return false;
        }
    }

    public Kind kind() {
        return kind;
    }

    /** The stand-in whose wall clock can be stepped, when this backend is one ({@link #startSteppedClock}). */
    public Optional<SteppedClockStandIn> steppedClock() {
        return Optional.ofNullable(steppedClock);
    }

    /**
     * Whether the server evaluates {@code $$NOW} in an aggregation (MongoDB and the stand-in do; FerretDB
     * 1.24 returns the string "$$NOW"), asked once.
     */
    public synchronized boolean evaluatesNow() {
        if (evaluatesNow == null) {
            MongoCollection<Document> probe = collection(freshDatabase(), "now-probe");
            probe.insertOne(new Document("_id", 1));
            Document answer = probe.aggregate(java.util.List.of(new Document("$addFields", new Document("now", "$$NOW"))))
                    .first();
            evaluatesNow = answer != null && answer.get("now") instanceof java.util.Date;
            probe.drop();
        }
        return evaluatesNow;
    }

    /** A connection string to the backend (no database in it). */
    public String uri() {
        return uri;
    }

    /** A client shared by the tests; do not close it. */
    public MongoClient client() {
        return client;
    }

    /** A database name no other test uses, so tests never see each other's locks. */
    public String freshDatabase() {
        return "mongolock_test_" + runId + "_" + databases.incrementAndGet();
    }

    public MongoCollection<Document> collection(String database, String collection) {
        return client.getDatabase(database).getCollection(collection);
    }

    public String describe() {
        return switch (kind) {
            case EXTERNAL_URI -> "MONGOLOCK_TEST_URI (" + io.github.mongolock.mongo.RedactedUri.of(uri) + ")";
            case FERRETDB -> "FerretDB " + FerretDbServer.VERSION + " (SQLite backend, built from its Go module) at " + uri
                    + " (a MongoDB-compatible server, not MongoDB; its log: " + ferretDb.log() + ")";
            case TESTCONTAINERS -> "Testcontainers mongo:7 at " + uri;
            case STAND_IN -> "in-process stand-in de.bwaldvogel:mongo-java-server (memory backend) at " + uri
                    + " (not real MongoDB: set MONGOLOCK_TEST_URI to test against one)";
            case STEPPED_CLOCK_STAND_IN -> steppedClock.describe();
        };
    }

    @Override
    public void close() {
        client.close();
        if (standIn != null) {
            standIn.shutdownNow();
        }
        if (container != null) {
            container.stop();
        }
        if (steppedClock != null) {
            steppedClock.close();
        }
        if (ferretDb != null) {
            ferretDb.close();
        }
    }
}
