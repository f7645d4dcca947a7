package io.github.mongolock.torture;

import com.mongodb.client.MongoCollection;
import io.github.mongolock.LockManager;
import io.github.mongolock.PermitHold;
import io.github.mongolock.Permits;
import java.util.concurrent.ThreadLocalRandom;
import org.bson.Document;

/**
 * The {@code PERMITS} workload (issue 32): {@code threads} threads of one lock manager loop over {@code locks}
 * semaphores ({@link #name}, limit {@link #limit}: 2, 3, ...), each round acquiring 1 permit, or 2 in one round of
 * {@value #TWO_PERMITS_ONE_IN}, of a random one, working inside, and giving them back ({@link SharedHoldsLoop}). The
 * work is the fenced counter's read-modify-write of the semaphore's counter document, fenced with the grant's token
 * (holders of one semaphore run at the same time, and the fence orders their writes: a lower token that comes late is
 * refused, so the counter loses nothing).
 */
final class PermitsWorkload {

    /** One round in this many takes 2 permits at once; the others take 1. */
    static final int TWO_PERMITS_ONE_IN = 4;

    private final WorkerSettings settings;
    private final LockManager manager;
    private final SharedHoldsLoop loop;

    PermitsWorkload(WorkerSettings settings, HistoryWriter history, LockManager manager, MongoCollection<Document> counters) {
        this.settings = settings;
        this.manager = manager;
        this.loop = new SharedHoldsLoop(settings, history, manager, counters, "permits", this::round);
    }

    /** The name of semaphore {@code index}: its own namespace (a lock of that name would be another thing). */
    static String name(int index) {
        return "sem-" + index;
    }

    /** The limit of semaphore {@code index}: 2 for the first, 3 for the second, and so on. */
    static int limit(int index) {
        return 2 + index;
    }

    /** The limit of the semaphore named {@code name}. */
    static int limitOf(String name) {
        return limit(Integer.parseInt(name.substring(name.indexOf('-') + 1)));
    }

    void run() throws InterruptedException {
        loop.run();
    }

    private SharedHoldsLoop.Round round(ThreadLocalRandom random) {
        int index = random.nextInt(settings.locks());
        String name = name(index);
        int limit = limit(index);
        int permits = random.nextInt(TWO_PERMITS_ONE_IN) == 0 ? 2 : 1;
        return new SharedHoldsLoop.Round(name, "TIMEOUT",
                () -> semaphore(name, limit).tryAcquire(permits, SharedHoldsLoop.NO_WAIT).map(hold -> held(hold, limit)),
                options -> held(semaphore(name, limit).acquire(permits, options), limit));
    }

    private Permits semaphore(String name, int limit) {
        return manager.permits(name, limit);
    }

    private static SharedHoldsLoop.Held held(PermitHold hold, int limit) {
        return new SharedHoldsLoop.Held(hold.name(), hold.fencingToken(), hold.owner(), limit, hold.permits(), true,
                hold::isHeld, hold::onLeaseLost, hold::close);
    }
}
