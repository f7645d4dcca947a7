package io.github.mongolock.examples.quarkus;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.model.ReplaceOptions;
import io.github.mongolock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;
import org.bson.Document;

/**
 * A counter in MongoDB updated with a deliberately non-atomic read, pause, write: only the lock keeps
 * deposits from getting lost when every instance of the application makes them at once.
 */
@ApplicationScoped
public class Ledger {

    public static final String LOCK = "ledger";

    @Inject
    ExampleMongo mongo;

    @Locked(LOCK)
    public long deposit() {
        long read = balance();
        pause(); // widen the race window: without the lock, concurrent deposits would be lost
        mongo.counters().replaceOne(eq("_id", LOCK), new Document("_id", LOCK).append("value", read + 1),
                new ReplaceOptions().upsert(true));
        return read + 1;
    }

    public long balance() {
        return Optional.ofNullable(mongo.counters().find(eq("_id", LOCK)).first()).map(counter -> counter.getLong("value")).orElse(0L);
    }

    private static void pause() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
