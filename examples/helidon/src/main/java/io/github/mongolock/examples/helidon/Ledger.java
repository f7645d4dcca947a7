package io.github.mongolock.examples.helidon;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.model.ReplaceOptions;
import io.github.mongolock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
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

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger mostInside = new AtomicInteger();

    /** One deposit under the cluster-wide lock {@value #LOCK}; returns the new balance. */
    @Locked(LOCK)
    public long deposit() {
        return depositHoldingTheLock();
    }

    /**
     * The deposit's work without taking the lock: for a caller that already holds {@value #LOCK} some other way (the
     * tests' second instance does, through its own {@code LockManager}). Counts how many callers are inside at once.
     */
    public long depositHoldingTheLock() {
        mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
        try {
            long read = balance();
            pause(); // widen the race window: without the lock, concurrent deposits would be lost
            mongo.counters().replaceOne(eq("_id", LOCK), new Document("_id", LOCK).append("value", read + 1),
                    new ReplaceOptions().upsert(true));
            return read + 1;
        } finally {
            inside.decrementAndGet();
        }
    }

    public long balance() {
        return Optional.ofNullable(mongo.counters().find(eq("_id", LOCK)).first()).map(counter -> counter.getLong("value")).orElse(0L);
    }

    /** The most deposits this JVM has seen running at once: 1 while the lock works. */
    public int mostInsideAtOnce() {
        return mostInside.get();
    }

    private static void pause() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
