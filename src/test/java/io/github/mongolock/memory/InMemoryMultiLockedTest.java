package io.github.mongolock.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockLostException;
import io.github.mongolock.Locked;
import io.github.mongolock.OnLeaseLost;
import io.github.mongolock.cdi.MongoLockExtension;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code @Locked} with several names ({@code mongolock.uri=memory:}) and the test kit's controls on one part: the
 * lease-loss policies act on the loss of any part, and a returned stage keeps the whole set until it completes.
 */
class InMemoryMultiLockedTest {

    @ApplicationScoped
    public static class Jobs {
        private final CompletableFuture<String> started = new CompletableFuture<>();

        public CompletableFuture<String> started() {
            return started;
        }

        @Locked(value = {"import-{0}", "import-{1}"}, onLeaseLost = OnLeaseLost.INTERRUPT)
        public String importBoth(String first, String second) {
            started.complete("import");
            try {
                Thread.sleep(10_000);
                return "slept to the end";
            } catch (InterruptedException stopped) {
                return "interrupted";
            }
        }

        @Locked(value = {"report-{0}", "report-{1}"}, onLeaseLost = OnLeaseLost.CANCEL)
        public CompletionStage<String> report(String first, String second, CompletableFuture<String> work) {
            return work;
        }
    }

    private WeldContainer node;
    private Jobs jobs;
    private InMemoryLocks memory;

    @BeforeEach
    void start() {
        Map<String, String> values = Map.of("mongolock.uri", "memory:", "mongolock.instance-id", "app-node");
        node = new Weld("in-memory-multi").disableDiscovery().property("org.jboss.weld.se.shutdownHook", false)
                .addBeanClasses(Jobs.class)
                .addExtension(new MongoLockExtension(new SmallRyeConfigBuilder().addDefaultInterceptors()
                        .withSources(new PropertiesConfigSource(values, "test", 400)).build()))
                .initialize();
        jobs = node.select(Jobs.class).get();
        memory = node.select(InMemoryLocks.class).get();
    }

    @AfterEach
    void stop() {
        node.close();
    }

    @Test
    void losingOnePartInterruptsTheMethodAndTheOtherPartIsReleased() throws Exception {
        CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> {
            try {
                return jobs.importBoth("b", "a");
            } catch (LockLostException lost) {
                return "lost: " + lost.getMessage();
            }
        });
        jobs.started().get(5, TimeUnit.SECONDS);
        assertTrue(memory.store().inspect("import-a").isPresent() && memory.store().inspect("import-b").isPresent());
        memory.loseLease("import-b");
        String outcome = call.get(5, TimeUnit.SECONDS);
        assertTrue(outcome.startsWith("lost: ") && outcome.contains("import-b"), outcome);
        assertTrue(memory.store().inspect("import-a").isEmpty(), "the part that was not lost is released when the call ends");
    }

    @Test
    void aReturnedStageKeepsEveryPartUntilItCompletes() throws Exception {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletionStage<String> returned = jobs.report("x", "y", work);
        assertTrue(memory.store().inspect("report-x").isPresent() && memory.store().inspect("report-y").isPresent(),
                "both held while the stage is pending");
        work.complete("done");
        assertEquals("done", returned.toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertTrue(memory.store().inspect("report-x").isEmpty() && memory.store().inspect("report-y").isEmpty(),
                "both released before the caller's stage completed");
    }

    @Test
    void anotherOwnerTakingOnePartOverCancelsTheStage() {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletionStage<String> returned = jobs.report("x", "y", work);
        memory.takeOver("report-y", "batch-node");
        assertThrows(CancellationException.class, () -> returned.toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertTrue(work.isCancelled(), "the method's own stage was cancelled too");
        assertEquals("batch-node", memory.store().inspect("report-y").orElseThrow().owner());
    }
}
