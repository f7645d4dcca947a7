package io.github.mongolock.mongo;

import io.github.mongolock.LockListener;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockTracing;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.core.PermitReportsContract;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;

/** The semaphores' metrics, spans, events and inspect on MongoDB; permits taken back by {@link LockAdmin#forceReleasePermits}. */
@ExtendWith(MongoBackend.class)
class MongoPermitReportsTest extends PermitReportsContract {

    private final TestMongo mongo;
    private final String database;
    private final List<MongoLockManager> managers = new ArrayList<>();

    MongoPermitReportsTest(TestMongo mongo) {
        this.mongo = mongo;
        this.database = mongo.freshDatabase();
    }

    @AfterEach
    void close() {
        managers.forEach(MongoLockManager::close);
    }

    @Override
    protected LockManager manager(String instanceId, Duration lease, LockMetrics metrics, LockTracing tracing,
                                  LockListener listener) {
        MongoLockManager manager = MongoLockManager.builder().client(mongo.client()).database(database).instanceId(instanceId)
                .leaseTime(lease).metrics(metrics).tracing(tracing).listener(listener).build();
        managers.add(manager);
        return manager;
    }

    @Override
    protected void takeBack(String name, String owner) {
        new LockAdmin(mongo.client().getDatabase(database), MongoLockManager.DEFAULT_COLLECTION, Duration.ofSeconds(5), "test")
                .forceReleasePermits(name, owner, "taken back by the test");
    }
}
