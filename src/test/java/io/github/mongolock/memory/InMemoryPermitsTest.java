package io.github.mongolock.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockException;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockOptions;
import io.github.mongolock.PermitHold;
import io.github.mongolock.Permits;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The test kit's semaphores keep the same rules as MongoDB's (issue 32, part 1). */
class InMemoryPermitsTest {

    @Test
    void twoManagersShareTheLimitAndTokensGrow() {
        try (InMemoryLocks locks = new InMemoryLocks()) {
            Permits a = locks.newManager("a").permits("export", 2);
            Permits b = locks.newManager("b").permits("export", 2);
            try (PermitHold first = a.acquire(); PermitHold second = b.acquire()) {
                assertTrue(second.fencingToken() > first.fencingToken());
                Optional<PermitHold> third = b.tryAcquire();
                assertTrue(third.isEmpty(), "the limit of 2 is shared by both managers");
            }
            try (PermitHold both = b.acquire(2, LockOptions.defaults().waitTime(Duration.ZERO))) {
                assertEquals(2, both.permits());
            }
        }
    }

    @Test
    void anotherLimitIsRefusedAsOnMongoDb() {
        try (InMemoryLocks locks = new InMemoryLocks()) {
            try (PermitHold held = locks.newManager("a").permits("export", 3).acquire()) {
                LockConfigurationException refused = assertThrows(LockConfigurationException.class,
                        () -> locks.newManager("b").permits("export", 4).tryAcquire());
                assertTrue(refused.getMessage().contains("has 3 permits") && refused.getMessage().contains("limit of 4"),
                        refused.getMessage());
                assertTrue(held.isHeld());
            }
        }
    }

    @Test
    void takeBackPermitsFreesThemForAnyoneAndTellsEveryHolderBeforeItReturns() {
        try (InMemoryLocks locks = new InMemoryLocks()) {
            Permits a = locks.newManager("a").permits("export", 2);
            Permits b = locks.newManager("b").permits("export", 2);
            AtomicInteger lossActions = new AtomicInteger();
            PermitHold first = a.acquire().onLeaseLost(lossActions::incrementAndGet);
            PermitHold second = a.acquire().onLeaseLost(lossActions::incrementAndGet);
            assertTrue(b.tryAcquire().isEmpty(), "both permits are held");
            assertEquals(2, locks.takeBackPermits("export"));
            assertEquals(2, lossActions.get(), "both holders' loss actions ran before the control returned");
            assertFalse(first.isHeld());
            assertFalse(second.isHeld());
            try (PermitHold both = b.acquire(2, LockOptions.defaults())) {
                assertTrue(both.fencingToken() > second.fencingToken(), "the next grant's token is greater");
            }
            assertThrows(LockLostException.class, first::close);
            assertThrows(LockLostException.class, second::close);
            LockException none = assertThrows(LockException.class,
                    () -> locks.takeBackPermits("export"));
            assertTrue(none.getMessage().contains("has no permits held"), none.getMessage());
        }
    }

    @Test
    void losePermitsTakesOneHoldersPermitsBackAndReturnsOnceTheHolderWasTold() {
        java.util.List<io.github.mongolock.PermitEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (InMemoryLocks locks = new InMemoryLocks()) {
            InMemoryLockManager node = locks.manager().instanceId("node-1").listener(new io.github.mongolock.LockListener() {
                @Override
                public void onEvent(io.github.mongolock.LockEvent event) {
                }

                @Override
                public void onPermitEvent(io.github.mongolock.PermitEvent event) {
                    events.add(event);
                }
            }).build();
            Permits exports = node.permits("export", 2);
            PermitHold kept = exports.acquire();
            PermitHold lost = exports.acquire();
            java.util.concurrent.atomic.AtomicBoolean told = new java.util.concurrent.atomic.AtomicBoolean();
            lost.onLeaseLost(() -> told.set(true));
            locks.losePermits("export", lost.owner());
            assertTrue(told.get(), "returns once the holder's loss actions ran");
            assertTrue(!lost.isHeld() && kept.isHeld());
            assertEquals(io.github.mongolock.PermitEvent.Kind.LEASE_LOST, events.get(events.size() - 1).kind());
            assertEquals(1, exports.inspect().orElseThrow().used(), "free for others at once");
            assertThrows(io.github.mongolock.LockLostException.class, lost::close);
            io.github.mongolock.LockException none = assertThrows(io.github.mongolock.LockException.class,
                    () -> locks.losePermits("export", lost.owner()));
            assertTrue(none.getMessage().contains("has no permits held by " + lost.owner()), none.getMessage());
            kept.close();
        }
    }
}
