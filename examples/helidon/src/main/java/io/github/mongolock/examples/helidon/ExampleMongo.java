package io.github.mongolock.examples.helidon;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.annotation.PreDestroy;
import org.bson.Document;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The example's own data (the ledger's counter), in the database the locks use. mongolock does not need
 * this: it creates its own client from {@code mongolock.uri}.
 */
@ApplicationScoped
public class ExampleMongo {

    private final MongoClient client;
    private final MongoCollection<Document> counters;

    @Inject
    public ExampleMongo(@ConfigProperty(name = "mongolock.uri") String uri,
                        @ConfigProperty(name = "mongolock.database") String database) {
        this.client = MongoClients.create(uri);
        this.counters = client.getDatabase(database).getCollection("counters");
    }

    /** For the client proxy. */
    protected ExampleMongo() {
        this.client = null;
        this.counters = null;
    }

    public MongoCollection<Document> counters() {
        return counters;
    }

    @PreDestroy
    void close() {
        client.close();
    }
}
