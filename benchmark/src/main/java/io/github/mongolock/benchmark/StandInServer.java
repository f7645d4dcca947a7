package io.github.mongolock.benchmark;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.io.IOException;
import java.io.InputStream;

/**
 * The default MongoDB of the benchmark: the mongo-java-server stand-in (memory backend, oplog on so
 * change streams work), bound to 127.0.0.1 on a free port, in a JVM of its own so its CPU and
 * garbage do not mix with the measured clients'. Prints {@code PORT <n>} once listening, and stops
 * when its standard input ends, which it does when the benchmark (its parent) exits for any reason.
 */
public final class StandInServer {

    private StandInServer() {
    }

    public static void main(String[] args) throws IOException {
        MongoServer server = new MongoServer(new MemoryBackend());
        server.enableOplog();
        server.bind("127.0.0.1", 0);
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow, "stand-in-shutdown"));
        System.out.println(Protocol.PORT + " " + server.getLocalAddress().getPort());
        System.out.flush();
        InputStream parent = System.in;
        while (parent.read() >= 0) {
            // Nothing is sent on purpose; end of input means the parent is gone.
        }
        server.shutdownNow();
        System.exit(0);
    }
}
