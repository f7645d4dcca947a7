package io.github.mongolock;

import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link MultiLockContract} on MongoDB (the test backend): managers are {@link MongoLockManager}s on one database. */
@ExtendWith(MongoBackend.class)
class MongoMultiLockTest extends MultiLockContract {

    private final TestMongo mongo;
    private final List<MongoLockManager> managers = new ArrayList<>();
    private String database;

    MongoMultiLockTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void freshDatabase() {
        database = mongo.freshDatabase();
    }

    @AfterEach
    void closeManagers() {
        managers.forEach(MongoLockManager::close);
    }

    @Override
    LockManager node(String instanceId) {
        MongoLockManager manager = MongoLockManager.builder().client(mongo.client()).database(database)
                .instanceId(instanceId).build();
        managers.add(manager);
        return manager;
    }
}
