package io.github.mongolock.examples.jobs;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.setOnInsert;

import com.mongodb.client.model.FindOneAndUpdateOptions;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import org.bson.Document;

/**
 * A shared counter updated with a deliberately non-atomic read-modify-write: only the lock keeps
 * increments from getting lost when every instance of the application calls it at once. The read
 * and the write are fenced with the lock's token ({@link io.github.mongolock.mongo.FencedCollection}),
 * so a server paused past its lease cannot set the counter back when it wakes up: MongoDB refuses its
 * late write, and the request fails with {@link io.github.mongolock.FencedWriteRejectedException}.
 */
@ApplicationScoped
public class Ledger {

    static final String LOCK = "ledger";

    /** The first increment creates the counter; the "before" image is then null. */
    private static final FindOneAndUpdateOptions CREATE_IF_MISSING = new FindOneAndUpdateOptions().upsert(true);

    @Inject
    LockManager locks;

    @Inject
    ExampleData data;

    /**
     * The CDI-bean case: {@code @Locked} with a fixed name; its lease comes from a per-class config
     * override. Every instance calls it at once; the servers take turns (each hands the lock to its own
     * waiting requests a few times, then lets the other in), so a plain 10 s wait is plenty.
     */
    @Locked(value = LOCK, waitTime = "PT10S")
    public Section increment() {
        long start = System.nanoTime();
        LockInfo lock = locks.inspect(LOCK).orElseThrow(() -> new IllegalStateException("not locked"));
        // The read registers this holder's token with the counter: from now on no earlier holder can write it.
        Document counter = data.fencedCounters().findOneAndUpdate(lock.fencingToken(), eq("_id", LOCK),
                setOnInsert("value", 0L), CREATE_IF_MISSING);
        long read = counter == null ? 0 : counter.getLong("value");
        pause(); // widen the race window: without the lock, concurrent increments would be lost
        data.fencedCounters().updateOne(lock.fencingToken(), eq("_id", LOCK), set("value", read + 1));
        long end = System.nanoTime();
        Section section = new Section(data.serverName(), lock.owner(), lock.fencingToken(), read + 1, start, end,
                Duration.between(Instant.now(), lock.expiresAt()).toMillis());
        data.sections().insertOne(new Document("server", section.server()).append("owner", section.owner())
                .append("token", section.token()).append("value", section.value())
                .append("startNanos", section.startNanos()).append("endNanos", section.endNanos()));
        return section;
    }

    private static void pause() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** One critical section, timed with System.nanoTime (one clock for all processes of a machine). */
    public record Section(String server, String owner, long token, long value, long startNanos, long endNanos,
                          long leaseLeftMs) {
    }
}
