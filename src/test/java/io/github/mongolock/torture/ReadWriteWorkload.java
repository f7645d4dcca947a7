package io.github.mongolock.torture;

import com.mongodb.client.MongoCollection;
import io.github.mongolock.LockManager;
import io.github.mongolock.ReadWriteHold;
import io.github.mongolock.ReadWriteLock;
import io.github.mongolock.core.ReadWriteStore;
import java.util.concurrent.ThreadLocalRandom;
import org.bson.Document;

/**
 * The {@code READ_WRITE} workload (read-write locks, issue 32 part 3): {@code threads} threads of one lock manager
 * loop over {@code locks} read-write locks ({@link #name}), each round taking read access of a random one, or write
 * access in one round of {@value #WRITE_ONE_IN}, working inside, and closing the hold ({@link SharedHoldsLoop}). A
 * writer does the fenced counter's read-modify-write of the lock's counter document with its grant's token; a reader
 * only reads the counter (a plain read). Each hold is recorded as a hold of permits (the design's own mapping, a read
 * 1 permit, a write {@link ReadWriteStore#WHOLE} of a limit of {@code WHOLE}). A failed acquire is recorded with its
 * mode ({@code TIMEOUT} for a read, {@value #WRITE_TIMEOUT} for a write).
 */
final class ReadWriteWorkload {

    /** One round in this many takes write access; the others read access. */
    static final int WRITE_ONE_IN = 5;
    /** The kind of a write acquire that timed out (a read's is {@code TIMEOUT}). */
    static final String WRITE_TIMEOUT = "TIMEOUT_WRITE";

    private final WorkerSettings settings;
    private final LockManager manager;
    private final SharedHoldsLoop loop;

    ReadWriteWorkload(WorkerSettings settings, HistoryWriter history, LockManager manager, MongoCollection<Document> counters) {
        this.settings = settings;
        this.manager = manager;
        this.loop = new SharedHoldsLoop(settings, history, manager, counters, "read-write", this::round);
    }

    /** The name of read-write lock {@code index}: its own namespace (a lock or semaphore of that name is another thing). */
    static String name(int index) {
        return "rw-" + index;
    }

    /** Whether a recorded hold (read 1 permit, write {@link ReadWriteStore#WHOLE}) was a write. */
    static boolean isWrite(PermitSection hold) {
        return hold.permits() == ReadWriteStore.WHOLE;
    }

    void run() throws InterruptedException {
        loop.run();
    }

    private SharedHoldsLoop.Round round(ThreadLocalRandom random) {
        String name = name(random.nextInt(settings.locks()));
        boolean write = random.nextInt(WRITE_ONE_IN) == 0;
        return new SharedHoldsLoop.Round(name, write ? WRITE_TIMEOUT : "TIMEOUT",
                () -> (write ? lock(name).tryWrite(SharedHoldsLoop.NO_WAIT) : lock(name).tryRead(SharedHoldsLoop.NO_WAIT))
                        .map(ReadWriteWorkload::held),
                options -> held(write ? lock(name).write(options) : lock(name).read(options)));
    }

    private ReadWriteLock lock(String name) {
        return manager.readWriteLock(name);
    }

    private static SharedHoldsLoop.Held held(ReadWriteHold hold) {
        boolean write = hold.mode() == ReadWriteHold.Mode.WRITE;
        return new SharedHoldsLoop.Held(hold.name(), hold.fencingToken(), hold.owner(), ReadWriteStore.WHOLE,
                write ? ReadWriteStore.WHOLE : 1, write, hold::isHeld, hold::onLeaseLost, hold::close);
    }
}
