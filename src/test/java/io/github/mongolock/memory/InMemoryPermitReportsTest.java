package io.github.mongolock.memory;

import io.github.mongolock.LockListener;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockTracing;
import io.github.mongolock.core.LockCoordinator;
import io.github.mongolock.core.MonotonicClock;
import io.github.mongolock.core.PermitReportsContract;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;

/** The semaphores' metrics, spans, events and inspect on the in-memory store; permits taken back by {@link InMemoryLocks#losePermits}. */
class InMemoryPermitReportsTest extends PermitReportsContract {

    private final InMemoryLocks locks = new InMemoryLocks();
    private final List<LockCoordinator> managers = new ArrayList<>();

    @AfterEach
    void close() {
        managers.forEach(LockCoordinator::close);
        locks.close();
    }

    @Override
    protected LockManager manager(String instanceId, Duration lease, LockMetrics metrics, LockTracing tracing,
                                  LockListener listener) {
        // InMemoryLockManager takes no metrics: the coordinator it wraps, on the same store.
        LockCoordinator manager = new LockCoordinator(locks.store(), instanceId + ":" + UUID.randomUUID().toString().replace("-", ""),
                lease, Duration.ofSeconds(10), MonotonicClock.system(), List.of(listener), locks.store().releaseFeed(), metrics,
                tracing);
        managers.add(manager);
        return manager;
    }

    @Override
    protected void takeBack(String name, String owner) {
        locks.losePermits(name, owner);
    }
}
