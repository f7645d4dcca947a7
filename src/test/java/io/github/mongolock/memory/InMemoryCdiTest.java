package io.github.mongolock.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockEvent;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockSession;
import io.github.mongolock.Locked;
import io.github.mongolock.OnLeaseLost;
import io.github.mongolock.cdi.MongoLockExtension;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code @Locked} in a Weld container with {@code mongolock.uri=memory:}: no MongoDB anywhere, the application's
 * locks in the in-memory store of the {@link InMemoryLocks} bean, whose controls the test uses.
 */
class InMemoryCdiTest {

    @ApplicationScoped
    public static class Importer {
        @Inject
        LockManager locks;
        private final CompletableFuture<String> started = new CompletableFuture<>();
        final List<LockEvent> events = new CopyOnWriteArrayList<>();

        /** Through a method: the test holds a client proxy, whose own fields are not the bean's. */
        public CompletableFuture<String> started() {
            return started;
        }

        public List<LockEvent> events() {
            return events;
        }

        void observe(@Observes LockEvent event) {
            events.add(event);
        }

        @Locked("count")
        public String whoHolds() {
            return locks.inspect("count").orElseThrow().owner();
        }

        @Locked(value = "nightly", onBusy = Locked.OnBusy.SKIP)
        public Optional<String> nightly() {
            return Optional.of("ran");
        }

        @Locked(value = "import", onLeaseLost = OnLeaseLost.INTERRUPT)
        public String importCatalogue() {
            started.complete("import");
            try {
                Thread.sleep(10_000);
                return "slept to the end";
            } catch (InterruptedException stopped) {
                return "interrupted";
            }
        }

        @Locked(value = "report", onLeaseLost = OnLeaseLost.CANCEL)
        public CompletionStage<String> report(CompletableFuture<String> work) {
            return work;
        }
    }

    private WeldContainer node;
    private Importer importer;
    private InMemoryLocks memory;

    @BeforeEach
    void start() {
        Map<String, String> values = Map.of("mongolock.uri", "memory:", "mongolock.instance-id", "app-node");
        node = new Weld("in-memory").disableDiscovery().property("org.jboss.weld.se.shutdownHook", false)
                .addBeanClasses(Importer.class)
                .addExtension(new MongoLockExtension(new SmallRyeConfigBuilder().addDefaultInterceptors()
                        .withSources(new PropertiesConfigSource(values, "test", 400)).build()))
                .initialize();
        importer = node.select(Importer.class).get();
        memory = node.select(InMemoryLocks.class).get();
    }

    @AfterEach
    void stop() {
        node.close();
    }

    @Test
    void lockedRunsOnTheInMemoryStoreAndExcludesAnotherInstance() {
        assertTrue(importer.whoHolds().startsWith("app-node:"), "held by the application's manager while the method runs");
        assertTrue(memory.store().inspect("count").isEmpty(), "released when it returned");
        assertEquals(LockEvent.Kind.ACQUIRED, importer.events().get(0).kind(), "events are CDI events as with MongoDB");
        try (InMemoryLockManager other = memory.newManager("other-instance");
             LockSession held = other.acquire("nightly", Duration.ZERO)) {
            assertEquals(Optional.empty(), importer.nightly(), "another instance holds it: skipped");
        }
        assertEquals(Optional.of("ran"), importer.nightly());
    }

    @Test
    void aForcedLeaseLossInterruptsAnInterruptibleMethod() throws Exception {
        CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> {
            try {
                return importer.importCatalogue();
            } catch (LockLostException lost) {
                return "lost: " + lost.getMessage();
            }
        });
        importer.started().get(5, TimeUnit.SECONDS);
        memory.loseLease("import");
        String outcome = call.get(5, TimeUnit.SECONDS);
        assertTrue(outcome.startsWith("lost: "), "the method was interrupted and its call reported the loss: " + outcome);
        assertTrue(importer.events().stream().anyMatch(event -> event.kind() == LockEvent.Kind.LEASE_LOST
                && event.name().equals("import")), "LEASE_LOST observed: " + importer.events());
    }

    @Test
    void anotherOwnerTakingTheLockOverCancelsACancellableStage() {
        CompletableFuture<String> pending = new CompletableFuture<>();
        CompletionStage<String> returned = importer.report(pending);
        long token = memory.takeOver("report", "batch-node");
        assertEquals(2, token, "the other owner's grant comes after the application's");
        assertThrows(CancellationException.class, () -> returned.toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertTrue(returned.toCompletableFuture().isCancelled(), "the caller's stage was cancelled");
        assertTrue(pending.isCancelled(), "the method's own stage was cancelled too");
        assertEquals("batch-node", memory.store().inspect("report").orElseThrow().owner());
    }
}
