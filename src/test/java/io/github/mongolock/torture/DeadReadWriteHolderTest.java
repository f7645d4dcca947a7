package io.github.mongolock.torture;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockOptions;
import io.github.mongolock.ReadWriteHold;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a short RW_KILL run met (2026-11-29, run 3: after w2.0 was killed, every acquire of {@code rw-1}, reads and
 * writes of three live processes, timed out for the 10 s left, writers there all along), played without signals: a
 * manager "dies" (every store call of it hangs, as a frozen process's) while it holds read access, or has a writer
 * waiting in the queue, or both; another manager must then get write access, and read access, within lease + 3 %,
 * a poll and slack. Lease 1 s.
 *
 * <p>The dead reader alone and the dead queued writer alone pass; a dead manager holding read with its own writer
 * queued <b>fails</b> (no write, no read within 3.5 s; with {@code -Ddeadrw.within=15000} a write got in after
 * 4.6 s, with 12000 a read after 4.8 s; writers retrying 2 s waits never do) (a production finding, reported, not fixed here: src/main is others' work). Read, not
 * verified: the queue's gone head is judged by a {@code PermitQueues.HeadWatch} made per acquire call, after
 * {@code TURN_GRACE} (3 s + 3 %, whatever the lease), and only while the watcher's permits are free; a call waiting
 * 3 s or less (the torture's waits) never drops it, and a writer sees its permits free only once the dead reader's
 * entry is reclaimed, which does not grant it while the dead manager heads the queue.
 */
@ExtendWith(MongoBackend.class)
class DeadReadWriteHolderTest {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration WITHIN = Duration.ofMillis(Long.getLong("deadrw.within", 3_500));

    private final DeadAndLiveManagers managers;

    DeadReadWriteHolderTest(TestMongo mongo) {
        managers = new DeadAndLiveManagers(mongo, LEASE, Duration.ofSeconds(10));
    }

    @AfterEach
    void close() {
        managers.close();
    }

    @Test
    void aDeadReadersAccessGoesToAWriter() {
        managers.dead.readWriteLock("rw").read();
        managers.dying.die();
        assertTrue(timed("write beside a dead reader", () -> managers.other.readWriteLock("rw").tryWrite(wait(WITHIN))).isPresent(),
                "no write within " + WITHIN.toMillis() + " ms of a reader's death");
    }

    @Test
    void aDeadManagersQueuedWriterDoesNotBlockReadersForEver() throws InterruptedException {
        ReadWriteHold read = managers.other.readWriteLock("rw").read();
        Thread writer = queuedWriter();
        read.close();
        assertTrue(timed("read behind a dead queued writer", () -> managers.other.readWriteLock("rw").tryRead(wait(WITHIN))).isPresent(),
                "no read within " + WITHIN.toMillis() + " ms of a queued writer's manager's death");
        writer.interrupt();
    }

    @Test
    void aDeadManagersQueuedWriterDoesNotBlockOtherWritersForEver() throws InterruptedException {
        ReadWriteHold read = managers.other.readWriteLock("rw").read();
        Thread writer = queuedWriter();
        read.close();
        assertTrue(timed("write behind a dead queued writer", () -> managers.other.readWriteLock("rw").tryWrite(wait(WITHIN))).isPresent(),
                "no write within " + WITHIN.toMillis() + " ms of a queued writer's manager's death");
        writer.interrupt();
    }

    @Test
    void aDeadManagerHoldingReadWithAWriterQueuedGivesWayToAWriter() throws InterruptedException {
        managers.dead.readWriteLock("rw").read();
        Thread writer = queuedWriterOfTheDead();
        assertTrue(timed("write beside a dead reader whose manager's writer queued", () -> managers.other.readWriteLock("rw")
                .tryWrite(wait(WITHIN))).isPresent(), "no write within " + WITHIN.toMillis() + " ms");
        writer.interrupt();
    }

    @Test
    void aDeadManagerHoldingReadWithAWriterQueuedGivesWayToAReader() throws InterruptedException {
        managers.dead.readWriteLock("rw").read();
        Thread writer = queuedWriterOfTheDead();
        assertTrue(timed("read beside a dead reader whose manager's writer queued", () -> managers.other.readWriteLock("rw")
                .tryRead(wait(WITHIN))).isPresent(), "no read within " + WITHIN.toMillis() + " ms");
        writer.interrupt();
    }

    /**
     * As the torture's writers ask: each acquire waits {@code 2 s}, less than the dead manager's queue entry takes to
     * go, and asks again at once; within 15 s (lease 1 s) one must get write access.
     */
    @Test
    void writersRetryingShortWaitsGetPastADeadManagerHoldingReadWithAWriterQueued() throws InterruptedException {
        managers.dead.readWriteLock("rw").read();
        Thread writer = queuedWriterOfTheDead();
        long begin = System.nanoTime();
        Optional<ReadWriteHold> got = Optional.empty();
        while (got.isEmpty() && System.nanoTime() - begin < TimeUnit.SECONDS.toNanos(15)) {
            got = managers.other.readWriteLock("rw").tryWrite(wait(Duration.ofSeconds(2)));
        }
        System.out.printf("[dead read-write holder] writers retrying 2 s waits: %s after %d ms%n",
                got.isPresent() ? "granted" : "NOT granted", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
        got.ifPresent(ReadWriteHold::close);
        assertTrue(got.isPresent(), "no write within 15 s of 2 s waits");
        writer.interrupt();
    }

    /** The dead manager's writer waits behind another's read (its manager joins the queue), then the manager dies. */
    private Thread queuedWriter() throws InterruptedException {
        Thread writer = startWriter();
        TimeUnit.MILLISECONDS.sleep(500);
        managers.dying.die();
        return writer;
    }

    /** The dead manager's second thread waits to write behind its own first thread's read, then the manager dies. */
    private Thread queuedWriterOfTheDead() throws InterruptedException {
        return queuedWriter();
    }

    private Thread startWriter() {
        Thread writer = new Thread(() -> {
            try {
                managers.dead.readWriteLock("rw").write(wait(Duration.ofSeconds(30))).close();
            } catch (RuntimeException ended) {
                // the test is over
            }
        }, "dead-writer");
        writer.setDaemon(true);
        writer.start();
        return writer;
    }

    private static LockOptions wait(Duration wait) {
        return LockOptions.defaults().waitTime(wait);
    }

    private static <T> Optional<T> timed(String what, Supplier<Optional<T>> attempt) {
        long begin = System.nanoTime();
        Optional<T> got = attempt.get();
        System.out.printf("[dead read-write holder] %s: %s after %d ms%n", what, got.isPresent() ? "granted" : "NOT granted",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
        got.ifPresent(hold -> ((ReadWriteHold) hold).close());
        return got;
    }
}
