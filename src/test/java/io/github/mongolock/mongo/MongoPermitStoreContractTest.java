package io.github.mongolock.mongo;

import com.mongodb.client.MongoCollection;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.PermitStoreContract;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.Document;
import org.junit.jupiter.api.extension.ExtendWith;

/** The semaphore contract on MongoDB's store (the backend the test log names). */
@ExtendWith(MongoBackend.class)
class MongoPermitStoreContractTest extends PermitStoreContract {

    private final TestMongo mongo;
    /** The collection each store of a test works on, so a second manager's store shares it. */
    private final Map<LockStore, MongoCollection<Document>> collections = new ConcurrentHashMap<>();

    MongoPermitStoreContractTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @Override
    protected LockStore newStore() {
        return storeOn(mongo.collection(mongo.freshDatabase(), "locks"));
    }

    @Override
    protected LockStore sameStoreAs(LockStore store) {
        return storeOn(collections.get(store));
    }

    private LockStore storeOn(MongoCollection<Document> collection) {
        MongoLockStore store = new MongoLockStore(collection, MongoLockStore.DEFAULT_TIMEOUT, LockMetrics.NONE,
                ServerProfile.UNCHECKED);
        collections.put(store, collection);
        return store;
    }
}
