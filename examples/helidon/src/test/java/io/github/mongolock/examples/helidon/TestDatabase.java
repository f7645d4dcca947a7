package io.github.mongolock.examples.helidon;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The MongoDB the tests use: {@code MONGOLOCK_TEST_URI} when set, else the in-process stand-in
 * (de.bwaldvogel mongo-java-server, memory backend, oplog on for change streams) on a free 127.0.0.1 port, started on
 * first use. Says which one it is.
 *
 * <p>As a JUnit extension, registered with {@code @ExtendWith} before {@code @HelidonTest}: before the application
 * starts, it registers the application's MicroProfile Config (the default sources, so system properties, environment
 * and META-INF/microprofile-config.properties, plus {@link #configSource()} above them), which the test class takes with
 * {@code @Configuration(useExisting = true)}; when the whole test run ends, after Helidon has stopped the application
 * (Helidon closes its container with the test class's store, after every {@code afterAll}), it stops the stand-in.
 * One configuration for every test class, whose second node ({@code MongoLockManager}) uses the same URI. (mongolock
 * reads its settings once {@code BeforeBeanDiscovery} is over, after Helidon's test support has put the configuration in
 * place in its own observer of that event; see the README.)
 */
public final class TestDatabase implements BeforeAllCallback {

    private static MongoServer standIn;
    private static String uri;
    private static Config registered;

    /** The connection string, starting the stand-in if there is no {@code MONGOLOCK_TEST_URI}. */
    static synchronized String uri() {
        if (uri == null) {
            String external = System.getenv("MONGOLOCK_TEST_URI");
            if (external != null && !external.isBlank()) {
                uri = external;
                System.out.println("[mongolock test] MongoDB backend: MONGOLOCK_TEST_URI");
            } else {
                standIn = new MongoServer(new MemoryBackend());
                standIn.enableOplog();
                standIn.bind("127.0.0.1", 0);
                uri = "mongodb://127.0.0.1:" + standIn.getLocalAddress().getPort();
                System.out.println("[mongolock test] MongoDB backend: the in-process stand-in de.bwaldvogel:mongo-java-server"
                        + " (memory backend, oplog on) at " + uri);
            }
        }
        return uri;
    }

    /**
     * {@code mongolock.uri} = {@link #uri()}, and Helidon's server on a free port of 127.0.0.1; above system properties
     * (400), the environment (300) and microprofile-config.properties (100).
     */
    static ConfigSource configSource() {
        Map<String, String> values = Map.of("mongolock.uri", uri(), "server.port", "0", "server.host", "127.0.0.1");
        return new ConfigSource() {
            @Override
            public Set<String> getPropertyNames() {
                return values.keySet();
            }

            @Override
            public String getValue(String key) {
                return values.get(key);
            }

            @Override
            public Map<String, String> getProperties() {
                return values;
            }

            @Override
            public int getOrdinal() {
                return 1000;
            }

            @Override
            public String getName() {
                return "mongolock test database";
            }
        };
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        ConfigProviderResolver resolver = ConfigProviderResolver.instance();
        if (registered != null) { // the previous test class's
            resolver.releaseConfig(registered);
        }
        registered = resolver.getBuilder().addDefaultSources().addDiscoveredSources().addDiscoveredConverters()
                .withSources(configSource()).build();
        resolver.registerConfig(registered, Thread.currentThread().getContextClassLoader());
        context.getRoot().getStore(ExtensionContext.Namespace.create(TestDatabase.class))
                .getOrComputeIfAbsent("stop", key -> (ExtensionContext.Store.CloseableResource) TestDatabase::stop);
    }

    /** Releases the registered configuration and stops the stand-in, if any. */
    static void stop() {
        if (registered != null) {
            ConfigProviderResolver.instance().releaseConfig(registered);
            registered = null;
        }
        synchronized (TestDatabase.class) {
            if (standIn != null) {
                standIn.shutdownNow();
                standIn = null;
                uri = null;
            }
        }
    }
}
