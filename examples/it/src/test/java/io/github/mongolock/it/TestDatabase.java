package io.github.mongolock.it;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.net.URI;

/**
 * The MongoDB both servers share: {@code MONGOLOCK_TEST_URI} (host and port of a single server or
 * primary) when set, else the in-process stand-in on a free 127.0.0.1 port, with its oplog on so
 * change streams work. Says which one it is.
 */
final class TestDatabase implements AutoCloseable {

    private final MongoServer standIn;
    private final String host;
    private final int port;
    private final String description;

    private TestDatabase(MongoServer standIn, String host, int port, String description) {
        this.standIn = standIn;
        this.host = host;
        this.port = port;
        this.description = description;
        System.out.println("[real servers] MongoDB backend: " + description);
    }

    static TestDatabase start() {
        String external = System.getenv("MONGOLOCK_TEST_URI");
        if (external != null && !external.isBlank()) {
            URI uri = URI.create(external.replaceFirst("^mongodb://", "http://").replaceFirst("[,/?].*$", ""));
            return new TestDatabase(null, uri.getHost(), uri.getPort() < 0 ? 27017 : uri.getPort(),
                    "MONGOLOCK_TEST_URI, first host " + uri.getHost());
        }
        MongoServer server = new MongoServer(new MemoryBackend());
        server.enableOplog();
        server.bind("127.0.0.1", 0);
        int port = server.getLocalAddress().getPort();
        return new TestDatabase(server, "127.0.0.1", port,
                "in-process stand-in de.bwaldvogel:mongo-java-server (memory backend, oplog on) at 127.0.0.1:" + port);
    }

    String host() {
        return host;
    }

    int port() {
        return port;
    }

    String description() {
        return description;
    }

    @Override
    public void close() {
        if (standIn != null) {
            standIn.shutdownNow();
        }
    }
}
