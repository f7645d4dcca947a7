package io.github.mongolock.torture;

import io.github.mongolock.LockMetrics;
import io.github.mongolock.core.LockCoordinator;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.MonotonicClock;
import io.github.mongolock.mongo.MongoLockStore;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.List;

/**
 * Two lock coordinators on one fresh database, for tests of what a manager does about a holder that died: {@code dead},
 * over a {@link DyingStore} whose {@link DyingStore#die} stops every call (its renewals too), and {@code other}, over
 * the real store.
 */
final class DeadAndLiveManagers implements AutoCloseable {

    final DyingStore dying;
    final LockCoordinator dead;
    final LockCoordinator other;

    DeadAndLiveManagers(TestMongo mongo, Duration lease, Duration defaultWait) {
        LockStore real = new MongoLockStore(mongo.client().getDatabase(mongo.freshDatabase()), "locks",
                MongoLockStore.DEFAULT_TIMEOUT, LockMetrics.NONE);
        dying = new DyingStore(real);
        dead = new LockCoordinator(dying, "dead:" + System.nanoTime(), lease, defaultWait, MonotonicClock.system(), List.of());
        other = new LockCoordinator(real, "other:" + System.nanoTime(), lease, defaultWait, MonotonicClock.system(), List.of());
    }

    @Override
    public void close() {
        dying.revive();
        other.close();
        dead.close();
    }
}
