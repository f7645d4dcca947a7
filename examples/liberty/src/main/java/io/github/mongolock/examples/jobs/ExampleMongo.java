package io.github.mongolock.examples.jobs;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The example's MongoDB: {@code mongolock.uri} (the environment variable {@code MONGOLOCK_URI}) when
 * set; otherwise an in-memory MongoDB stand-in on 127.0.0.1, so that a newcomer can start the server
 * without a database. mongolock then uses this application's {@code MongoClient} bean (it does when
 * {@code mongolock.uri} is unset). The stand-in is not MongoDB and is not shared with other servers:
 * to see two servers exclude each other, point both at one MongoDB.
 */
@ApplicationScoped
public class ExampleMongo {

    private static final System.Logger LOG = System.getLogger(ExampleMongo.class.getName());

    @Inject
    @ConfigProperty(name = "mongolock.uri")
    Optional<String> uri;

    private MongoServer standIn;

    @Produces
    @ApplicationScoped
    MongoClient client() {
        if (uri.isPresent()) {
            return MongoClients.create(uri.get());
        }
        standIn = new MongoServer(new MemoryBackend());
        standIn.bind("127.0.0.1", 0);
        String standInUri = "mongodb://127.0.0.1:" + standIn.getLocalAddress().getPort();
        LOG.log(System.Logger.Level.WARNING, "MONGOLOCK_URI is not set: mongolock and this example use an in-memory"
                + " MongoDB stand-in at " + standInUri + ", for this server only. Set MONGOLOCK_URI=mongodb://... to use"
                + " a real MongoDB (and to let several servers share the locks).");
        return MongoClients.create(standInUri);
    }

    void close(@Disposes MongoClient client) {
        client.close();
        if (standIn != null) {
            standIn.shutdownNow();
        }
    }
}
