package io.github.mongolock.mongo;

import io.github.mongolock.LockMetrics;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.ReadWriteStoreContract;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import org.junit.jupiter.api.extension.ExtendWith;

/** The read-write store contract on MongoDB's store (the backend the test log names). */
@ExtendWith(MongoBackend.class)
class MongoReadWriteStoreContractTest extends ReadWriteStoreContract {

    private final TestMongo mongo;

    MongoReadWriteStoreContractTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @Override
    protected LockStore newStore() {
        return new MongoLockStore(mongo.collection(mongo.freshDatabase(), "locks"), MongoLockStore.DEFAULT_TIMEOUT,
                LockMetrics.NONE, ServerProfile.UNCHECKED);
    }
}
