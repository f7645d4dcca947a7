package io.github.mongolock.cdi;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.set;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import io.github.mongolock.LockLostException;
import io.github.mongolock.Locked;
import io.github.mongolock.OnLeaseLost;
import io.github.mongolock.testing.ForeignTakeover;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.SilentProxy;
import io.github.mongolock.testing.TestMongo;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.bson.Document;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code @Locked(onLeaseLost)} and {@code @Locked(holdAtLeast)} in a CDI container. A lease is lost the
 * way it is in production: another owner's grant replaces the document (here written by the test), and
 * the holder's next renewal (every lease/3 = 100 ms) finds it.
 */
@ExtendWith(MongoBackend.class)
class LeaseLossPolicyTest {

    @ApplicationScoped
    public static class Work {
        volatile CompletableFuture<String> started = new CompletableFuture<>();

        /** Through a method: the test holds a client proxy, whose own fields are not the bean's. */
        public CompletableFuture<String> started() {
            return started;
        }

        @Locked(value = "interrupted", onLeaseLost = OnLeaseLost.INTERRUPT)
        public String interruptible() {
            started.complete("interrupted");
            try {
                Thread.sleep(10_000);
                return "slept to the end";
            } catch (InterruptedException stopped) {
                return "interrupted, flag cleared by the catch";
            }
        }

        @Locked(value = "interrupted", onLeaseLost = OnLeaseLost.INTERRUPT)
        public String ignoresInterrupts() {
            started.complete("interrupted");
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
            while (System.nanoTime() < until) {
                Thread.onSpinWait(); // busy work that never looks at the flag
            }
            return "done";
        }

        @Locked(value = "reported")
        public String reportOnly() {
            started.complete("reported");
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            return "ran on";
        }

        @Locked(value = "cancelled", onLeaseLost = OnLeaseLost.CANCEL)
        public CompletionStage<String> cancellable(CompletableFuture<String> work) {
            started.complete("cancelled");
            return work;
        }

        @Locked(value = "nightly", onBusy = Locked.OnBusy.SKIP, holdAtLeast = "PT1.5S")
        public Optional<String> nightly() {
            return Optional.of("ran");
        }
    }

    private WeldContainer node;
    private Work work;
    private MongoCollection<Document> locks;

    @BeforeEach
    void start(TestMongo mongo) {
        String database = mongo.freshDatabase();
        node = WeldNodes.start("policy", WeldNodes.settings(mongo, database, "mongolock.lease-time", "PT0.3S"), Work.class);
        work = node.select(Work.class).get();
        locks = mongo.collection(database, "locks");
    }

    @AfterEach
    void stop() {
        node.close();
    }

    /** Another owner's grant, as a takeover after a long pause of this holder would write it. */
    private void takenOverOnceStarted(String name) throws Exception {
        work.started().get(5, TimeUnit.SECONDS);
        ForeignTakeover.take(locks, name, "someone-else:1:1");
    }

    /**
     * Calls a {@code @Locked} method on a pool thread; a {@link LockLostException} becomes {@code lost} plus
     * whether that thread is left interrupted (it must not be: it goes back to its pool).
     */
    private static CompletableFuture<String> onPooledThread(Supplier<String> method, String lost) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return method.get();
            } catch (LockLostException loss) {
                return lost + Thread.currentThread().isInterrupted();
            }
        });
    }

    @Test
    void interruptStopsASynchronousMethodAndTheThreadLeavesWithoutTheFlag() throws Exception {
        CompletableFuture<String> call = onPooledThread(work::interruptible, "lost, interrupt flag ");
        takenOverOnceStarted("interrupted");
        assertEquals("lost, interrupt flag false", call.get(5, TimeUnit.SECONDS),
                "the method was interrupted, its close() reported the loss, and no flag is left on the pooled thread");
    }

    @Test
    void aMethodIgnoringTheInterruptRunsOnButItsThreadIsNotLeftInterrupted() throws Exception {
        CompletableFuture<String> call = onPooledThread(work::ignoresInterrupts, "lost, interrupt flag ");
        takenOverOnceStarted("interrupted");
        assertEquals("lost, interrupt flag false", call.get(5, TimeUnit.SECONDS));
    }

    @Test
    void reportOnlyLetsTheMethodRunAndReportsTheLossWhenItReturns() throws Exception {
        CompletableFuture<String> call = onPooledThread(work::reportOnly, "lost after running, interrupt flag ");
        takenOverOnceStarted("reported");
        assertEquals("lost after running, interrupt flag false", call.get(5, TimeUnit.SECONDS));
    }

    @Test
    void cancelCancelsTheReturnedStage() throws Exception {
        CompletableFuture<String> pending = new CompletableFuture<>();
        CompletionStage<String> returned = work.cancellable(pending);
        takenOverOnceStarted("cancelled");
        assertThrows(CancellationException.class, () -> returned.toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertTrue(returned.toCompletableFuture().isCancelled(), "the caller's stage is cancelled, not failed");
        assertTrue(pending.isCancelled(), "the method's own stage was cancelled too");
    }

    /**
     * Issue 21: with MongoDB silent (its process paused), the lease ends unconfirmed, and the caller's stage
     * is cancelled then, within the lease: it waits for no clean-up write, however long MongoDB stays silent.
     */
    @Test
    void cancelReachesTheCallerWithinTheLeaseWhileMongoDbIsSilent(TestMongo mongo) throws Exception {
        try (SilentProxy proxy = SilentProxy.start(mongo.uri())) {
            WeldContainer silenced = WeldNodes.start("policy-silenced", WeldNodes.settings(mongo, mongo.freshDatabase(),
                    "mongolock.uri", proxy.uri(), "mongolock.lease-time", "PT1.5S", "mongolock.store-timeout", "PT10S"),
                    Work.class);
            try {
                Work silencedWork = silenced.select(Work.class).get();
                CompletableFuture<String> pending = new CompletableFuture<>();
                CompletionStage<String> returned = silencedWork.cancellable(pending);
                silencedWork.started().get(5, TimeUnit.SECONDS);
                proxy.silence();
                long silencedAt = System.nanoTime();
                assertThrows(CancellationException.class, () -> returned.toCompletableFuture().get(5, TimeUnit.SECONDS),
                        "the caller's stage must not wait for the 10 s store timeout");
                long cancelMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silencedAt);
                System.out.printf("[CANCEL, MongoDB silent] the caller's stage was cancelled %d ms after MongoDB went"
                        + " silent (lease 1500 ms, store timeout 10 s)%n", cancelMillis);
                assertTrue(returned.toCompletableFuture().isCancelled(), "cancelled, not failed");
                assertTrue(pending.isCancelled(), "the method's own stage was cancelled too");
                assertTrue(cancelMillis < 2_500, "cancelled " + cancelMillis + " ms after the silence, lease 1500 ms");
            } finally {
                silenced.close();
            }
        }
    }

    /** Cancelling the stage a {@code @Locked} method returned cancels the work, and the lock is released. */
    @Test
    void cancellingTheReturnedStageByHandCancelsTheWorkAndReleasesTheLock() throws Exception {
        CompletableFuture<String> pending = new CompletableFuture<>();
        CompletionStage<String> returned = work.cancellable(pending);
        work.started().get(5, TimeUnit.SECONDS);
        assertTrue(returned.toCompletableFuture().cancel(true));
        assertTrue(returned.toCompletableFuture().isCancelled(), "the caller's stage is cancelled");
        assertTrue(pending.isCancelled(), "the method's own stage, the work, is cancelled too");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (locks.find(eq("_id", "cancelled")).first().getInteger("holds") > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, locks.find(eq("_id", "cancelled")).first().getInteger("holds"), "the lock was released");
    }

    @Test
    void aScheduledJobWithAMinimumHoldRunsOncePerTickAcrossLateTimers() throws Exception {
        assertEquals(Optional.of("ran"), work.nightly());
        long ranAt = System.nanoTime();
        assertEquals(Optional.empty(), work.nightly(), "a timer firing just after the run skips");
        Thread.sleep(300);
        assertEquals(Optional.empty(), work.nightly(), "and still 300 ms later: the job took milliseconds");
        assertTrue(locks.find(eq("_id", "nightly")).first().getInteger("holds") > 0, "the document keeps it taken");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Optional<String> next = Optional.empty();
        while (next.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            next = work.nightly();
        }
        long afterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - ranAt);
        assertEquals(Optional.of("ran"), next, "the next tick runs once the minimum hold is over");
        assertTrue(afterMillis >= 1500, "ran again after " + afterMillis + " ms");
        assertFalse(afterMillis > 5000, "ran again after " + afterMillis + " ms: the hold did not free itself");
    }
}
