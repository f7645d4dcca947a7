package io.github.mongolock.examples.quarkus;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * The in-memory MongoDB stand-in (de.bwaldvogel mongo-java-server) on a free 127.0.0.1 port, with the oplog
 * its change streams need, started before the application and given to it as {@code mongolock.uri}. It
 * speaks the wire protocol but is not MongoDB.
 */
public class StandInMongo implements QuarkusTestResourceLifecycleManager {

    private MongoServer server;

    @Override
    public Map<String, String> start() {
        server = new MongoServer(new MemoryBackend());
        server.enableOplog();
        server.bind("127.0.0.1", 0);
        String uri = "mongodb://127.0.0.1:" + server.getLocalAddress().getPort();
        System.out.println("[mongolock test] MongoDB: the in-process stand-in (mongo-java-server) at " + uri);
        return Map.of("mongolock.uri", uri);
    }

    @Override
    public void stop() {
        if (server != null) {
            server.shutdownNow();
        }
    }
}
