package io.github.mongolock.mongo;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * The second OS process of {@link VersionedContentionTest}: connects, prints {@code ready}, waits for a line on
 * standard input (the go), increments one counter {@code updates} times through {@link VersionedCollection},
 * then prints {@code attempts=<n>} and exits 0.
 *
 * <p>Arguments: MongoDB URI, database, collection, document {@code _id}, updates.
 */
public final class VersionedCounterProcess {

    private VersionedCounterProcess() {
    }

    public static void main(String[] args) throws IOException {
        String uri = args[0];
        String database = args[1];
        String collection = args[2];
        String id = args[3];
        int updates = Integer.parseInt(args[4]);
        try (MongoClient client = MongoClients.create(uri)) {
            VersionedCollection counters = VersionedCollection.of(client.getDatabase(database).getCollection(collection))
                    .withRetries(VersionedContentionTest.PATIENT);
            counters.collection().countDocuments(); // connected before the go
            System.out.println("ready");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            long attempts = 0;
            for (int update = 0; update < updates; update++) {
                attempts += counters.update(id, VersionedContentionTest::increment).orElseThrow().attempts();
            }
            System.out.println("attempts=" + attempts);
        }
    }
}
