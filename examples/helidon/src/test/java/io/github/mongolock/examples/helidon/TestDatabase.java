package io.github.mongolock.examples.helidon;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The MongoDB the tests use: {@code MONGOLOCK_TEST_URI} when set, else the in-process stand-in
 * (de.bwaldvogel mongo-java-server, memory backend, oplog on for change streams) on a free 127.0.0.1 port, started on
 * first use. Says which one it is. Register it with {@code @ExtendWith} before {@code @HelidonTest}, so that it stops
 * the stand-in after Helidon has stopped the application.
 */
public final class TestDatabase implements AfterAllCallback {

    private static MongoServer standIn;
    private static String uri;

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

    /** {@code mongolock.uri} = {@link #uri()}, above microprofile-config.properties (100) and the environment (300). */
    static ConfigSource configSource() {
        String value = uri();
        return new ConfigSource() {
            @Override
            public Set<String> getPropertyNames() {
                return Set.of("mongolock.uri");
            }

            @Override
            public String getValue(String key) {
                return "mongolock.uri".equals(key) ? value : null;
            }

            @Override
            public Map<String, String> getProperties() {
                return Map.of("mongolock.uri", value);
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
    public void afterAll(ExtensionContext context) {
        synchronized (TestDatabase.class) {
            if (standIn != null) {
                standIn.shutdownNow();
                standIn = null;
                uri = null;
            }
        }
    }
}
