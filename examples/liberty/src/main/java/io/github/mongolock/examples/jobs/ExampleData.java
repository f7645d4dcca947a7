package io.github.mongolock.examples.jobs;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.github.mongolock.mongo.FencedCollection;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.bson.Document;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** The example's own data, kept in the same MongoDB database as the locks. */
@ApplicationScoped
public class ExampleData {

    /** The same MongoDB as the locks: MONGOLOCK_URI, or the embedded stand-in ({@link ExampleMongo}). */
    @Inject
    MongoClient client;

    @Inject
    @ConfigProperty(name = "mongolock.database")
    String database;

    @Inject
    @ConfigProperty(name = "example.server-name")
    String serverName;

    private MongoDatabase data;
    private FencedCollection<Document> fencedCounters;

    @PostConstruct
    void connect() {
        data = client.getDatabase(database);
        fencedCounters = FencedCollection.of(counters());
    }

    public String serverName() {
        return serverName;
    }

    /** One document per counter: {_id, value, fencingToken}. */
    public MongoCollection<Document> counters() {
        return data.getCollection("example_counters");
    }

    /** The counters, for writes MongoDB refuses when they carry an older lock token than the counter has seen. */
    public FencedCollection<Document> fencedCounters() {
        return fencedCounters;
    }

    /** One document per critical section of the ledger: who, which token, when (System.nanoTime). */
    public MongoCollection<Document> sections() {
        return data.getCollection("example_sections");
    }

    /** One document per charge of an account. */
    public MongoCollection<Document> charges() {
        return data.getCollection("example_charges");
    }

    /** One document per run of the Jakarta EE 11 scheduled report ({@link TickReport}). */
    public MongoCollection<Document> tickRuns() {
        return data.getCollection("example_tick_runs");
    }

    /** One document per scheduled call of {@link TickReport}, skipped or not ({@link TickTraceInterceptor}). */
    public MongoCollection<Document> tickAttempts() {
        return data.getCollection("example_tick_attempts");
    }

    /** One document per run of the scheduled report. */
    public MongoCollection<Document> reportRuns() {
        return data.getCollection("example_report_runs");
    }
}
