package io.github.mongolock.examples.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockManager;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.memory.InMemoryLocks;
import io.quarkus.arc.Arc;
import io.quarkus.arc.InstanceHandle;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * With {@code mongolock.uri=memory:} and no class injecting {@link InMemoryLocks}: Quarkus, which removes the beans
 * nothing injects, keeps this one, the manager and {@code @Locked} run on its store, and a programmatic lookup
 * finds it.
 */
@QuarkusTest
@TestProfile(InMemoryLocksLookupTest.NothingInjectsTheStore.class)
class InMemoryLocksLookupTest {

    /**
     * {@link InMemoryTestProfile} under a profile of its own: Quarkus builds an application per profile, and in this
     * one no test class injects {@code InMemoryLocks} ({@link InMemoryLocksTest} is built with the other).
     */
    public static class NothingInjectsTheStore extends InMemoryTestProfile {
    }

    @Inject
    LockManager locks;

    @Inject
    Accounts accounts;

    @Test
    void theStoreIsFoundByLookupAndTheLocksLiveInIt() {
        InstanceHandle<InMemoryLocks> found = Arc.container().instance(InMemoryLocks.class);
        assertTrue(found.isAvailable(), "the InMemoryLocks bean was removed as unused");
        InMemoryLocks memory = found.get();
        try (LockSession held = locks.acquire("account-1")) {
            assertEquals(held.owner(), memory.store().inspect("account-1").orElseThrow().owner(), "the manager runs on the bean's store");
        }
        memory.takeOver("account-2", "batch-node");
        LockTimeoutException busy = assertThrows(LockTimeoutException.class, () -> accounts.charge("2", 1));
        assertTrue(busy.getMessage().contains("batch-node"), busy.getMessage());
    }
}
