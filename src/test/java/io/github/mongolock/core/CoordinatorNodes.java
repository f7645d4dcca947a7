package io.github.mongolock.core;

import io.github.mongolock.LockListener;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.mongo.MongoLockStore;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The coordinator tests' fixture: a fresh lock collection on the test MongoDB, the same store behind a
 * {@link ScriptedStore} for faults, and coordinators ("nodes", each its own manager) that are all closed
 * with it, renewals resumed first so that no close waits behind a paused one. One per test.
 */
final class CoordinatorNodes implements AutoCloseable {

    final LockStore realStore;
    final ScriptedStore scripted;
    private final List<LockCoordinator> coordinators = new ArrayList<>();

    CoordinatorNodes(TestMongo mongo) {
        // Built as MongoLockManager builds it: on the database, so it asks what the server is.
        realStore = new MongoLockStore(mongo.client().getDatabase(mongo.freshDatabase()), "locks",
                MongoLockStore.DEFAULT_TIMEOUT, LockMetrics.NONE);
        scripted = new ScriptedStore(realStore);
    }

    /** A coordinator over {@code store} with a 10 s default wait and no push wake-up. */
    LockCoordinator node(String label, LockStore store, Duration lease, RetryBackoff backoff, List<LockListener> listeners) {
        LockCoordinator coordinator = new LockCoordinator(store, label + ":" + System.nanoTime(), lease,
                Duration.ofSeconds(10), MonotonicClock.system(), listeners, ReleaseFeed.NONE, backoff);
        coordinators.add(coordinator);
        return coordinator;
    }

    @Override
    public void close() {
        scripted.resumeRenewals();
        coordinators.forEach(LockCoordinator::close);
    }
}
