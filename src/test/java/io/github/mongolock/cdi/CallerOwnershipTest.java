package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockManager;
import io.github.mongolock.LockSession;
import io.github.mongolock.Locked;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code @Locked} holds belong to the call, not to the thread (issue 9, item 1); object methods are
 * never locked by a class-level binding and a failed deployment leaks no client (items 7 and 8).
 */
@ExtendWith(MongoBackend.class)
class CallerOwnershipTest {

    private final TestMongo mongo;

    CallerOwnershipTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    /** Dependent, so the test reads the counters of the intercepted instance itself, not of a client proxy. */
    @Dependent
    public static class Job {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger mostInside = new AtomicInteger();
        final AtomicInteger skipped = new AtomicInteger();

        /** The lock stays held until {@code work} completes, long after this call returned its thread to the pool. */
        @Locked(value = "job", onBusy = Locked.OnBusy.SKIP)
        public CompletableFuture<String> run(CompletableFuture<String> work) {
            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            return work.whenComplete((value, failure) -> inside.decrementAndGet());
        }

        @Locked(value = "job", waitTime = "PT0.2S")
        public String runNow() {
            return "ran";
        }
    }

    /** Dependent: a client proxy would answer hashCode() and equals() itself, without reaching the interceptor. */
    @Locked(value = "everything", waitTime = "PT0S")
    @Dependent
    public static class WholeClassLocked {
        public String work() {
            return "worked";
        }

        @Override
        public String toString() {
            return "WholeClassLocked";
        }

        @Override
        public boolean equals(Object other) {
            return other == this;
        }

        @Override
        public int hashCode() {
            return 42;
        }
    }

    @Test
    void aPendingStageIsNotReenteredByTheNextCallOnTheSamePooledThread() throws Exception {
        Map<String, String> values = WeldNodes.settings(mongo, mongo.freshDatabase());
        ExecutorService requestPool = Executors.newSingleThreadExecutor();
        try (WeldContainer node = WeldNodes.start("pending-stage", values, Job.class)) {
            Job job = node.select(Job.class).get();
            CompletableFuture<String> callerA = new CompletableFuture<>();
            CompletableFuture<String> stageA = requestPool.submit(() -> job.run(callerA)).get(10, TimeUnit.SECONDS);
            // Caller B, same pool thread, while A's stage is pending: A holds the lock, so B is skipped.
            CompletableFuture<String> callerB = new CompletableFuture<>();
            CompletableFuture<String> stageB = requestPool.submit(() -> job.run(callerB)).get(10, TimeUnit.SECONDS);
            assertTrue(stageB.isDone(), "B was skipped, its stage is complete");
            assertEquals(1, job.mostInside.get(), "two callers were inside the critical section together");
            assertEquals(1, node.select(LockManager.class).get().inspect("job").orElseThrow().holdCount());
            // A synchronous caller on that thread waits for A and times out instead of re-entering.
            Throwable busy = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> requestPool.submit(job::runNow).get(10, TimeUnit.SECONDS)).getCause();
            assertTrue(busy instanceof io.github.mongolock.LockTimeoutException, busy.toString());
            callerA.complete("A");
            assertEquals("A", stageA.get(10, TimeUnit.SECONDS));
            assertEquals("ran", requestPool.submit(job::runNow).get(10, TimeUnit.SECONDS));
            callerB.complete("B");
        } finally {
            requestPool.shutdownNow();
        }
    }

    @Test
    void aClassLevelBindingDoesNotLockObjectMethods() {
        String database = mongo.freshDatabase();
        Map<String, String> values = WeldNodes.settings(mongo, database);
        try (WeldContainer node = WeldNodes.start("object-methods", values, WholeClassLocked.class);
             MongoLockManager other = MongoLockManager.builder().client(mongo.client()).database(database).build();
             LockSession elsewhere = other.acquire("everything")) {
            WholeClassLocked bean = node.select(WholeClassLocked.class).get();
            assertEquals("WholeClassLocked", bean.toString(), "toString() must not wait for the lock");
            assertEquals(42, bean.hashCode());
            assertTrue(bean.equals(bean) || !bean.equals(null));
            assertThrows(io.github.mongolock.LockTimeoutException.class, bean::work, "business methods still lock");
            assertTrue(elsewhere.isHeld());
        }
    }

    public interface Greeter {
        @Locked("greeting")
        default java.util.Optional<io.github.mongolock.LockInfo> greet(LockManager locks) {
            return locks.inspect("greeting");
        }
    }

    @Dependent
    public static class DefaultGreeter implements Greeter {
    }

    /** README used to say CDI ignores bindings on interface default methods; Weld applies them. */
    @Test
    void aLockedInterfaceDefaultMethodIsLocked() {
        Map<String, String> values = WeldNodes.settings(mongo, mongo.freshDatabase());
        try (WeldContainer node = WeldNodes.start("default-method", values, DefaultGreeter.class)) {
            LockManager locks = node.select(LockManager.class).get();
            assertTrue(node.select(DefaultGreeter.class).get().greet(locks).isPresent(), "held while the default method runs");
            assertTrue(locks.inspect("greeting").isEmpty());
        }
    }

    public interface BrokenGreeter {
        @Locked("greeting-{9}")
        default String greet() {
            return "hello";
        }
    }

    @Dependent
    public static class BrokenDefaultGreeter implements BrokenGreeter {
    }

    @Test
    void aLockedInterfaceDefaultMethodIsCheckedAtDeployment() {
        Map<String, String> values = WeldNodes.settings(mongo, mongo.freshDatabase());
        RuntimeException refused = assertThrows(RuntimeException.class,
                () -> WeldNodes.start("broken-default-method", values, BrokenDefaultGreeter.class).close());
        assertTrue(String.valueOf(refused.getMessage()).contains("MONGOLOCK-CDI-") && refused.getMessage().contains("greet"),
                refused.toString());
    }

    /** Fails every deployment after mongolock's own checks passed, as a later extension would. */
    public static class FailingExtension implements Extension {
        void fail(@Observes @Priority(Integer.MAX_VALUE) AfterDeploymentValidation validation) {
            validation.addDeploymentProblem(new IllegalStateException("another extension refused this deployment"));
        }
    }

    @Test
    void aFailedDeploymentLeaksNoMongoClient() {
        Map<String, String> values = WeldNodes.settings(mongo, mongo.freshDatabase());
        long before = clientThreads();
        for (int deployment = 0; deployment < 5; deployment++) {
            assertThrows(RuntimeException.class, () -> WeldNodes.weld("failing", values, Job.class)
                    .addExtension(new FailingExtension()).initialize().close());
        }
        long after = awaitClientThreads(before);
        System.out.printf("[failed deployments] MongoDB client monitor threads: %d before, %d after 5 failed deployments%n",
                before, after);
        assertFalse(after > before, "each failed deployment left a MongoClient (and its monitor threads) open");
    }

    /** The driver runs one monitor thread per server per client, named "cluster-...". */
    private static long clientThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.isAlive() && thread.getName().startsWith("cluster-"))
                .count();
    }

    private static long awaitClientThreads(long target) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        long count = clientThreads();
        while (count > target && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                break;
            }
            count = clientThreads();
        }
        return count;
    }
}
