package io.github.mongolock.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.LockStoreContract;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(MongoBackend.class)
class MongoLockStoreContractTest extends LockStoreContract {

    private final TestMongo mongo;
    private String database;

    MongoLockStoreContractTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @Override
    protected LockStore newStore() {
        database = mongo.freshDatabase();
        return new MongoLockStore(mongo.collection(database, "locks"));
    }

    @Test
    void storesTheDocumentedShape() {
        AcquireAttempt.Granted granted = assertInstanceOf(AcquireAttempt.Granted.class,
                store.tryAcquire("job", "a", Duration.ofSeconds(30)));
        Document stored = mongo.collection(database, "locks").find().first();
        assertEquals(List.of("_id", "holds", "owner", "leaseId", "leaseMs", "version", "token", "acquiredAt", "renewedAt").stream().sorted().toList(),
                stored.keySet().stream().sorted().toList());
        assertEquals("job", stored.getString("_id"));
        assertEquals("a", stored.getString("owner"));
        assertEquals(1, stored.getInteger("holds"));
        assertEquals(granted.version(), stored.getLong("version"));
        assertEquals(granted.fencingToken(), stored.getLong("token"));
        assertEquals(30_000L, stored.getLong("leaseMs"));
        assertInstanceOf(Date.class, stored.get("renewedAt"));
        store.release("job", "a", granted.version(), 0);
        Document released = mongo.collection(database, "locks").find().first();
        assertEquals(null, released.getString("owner"));
        assertEquals(0, released.getInteger("holds"));
        assertEquals(granted.fencingToken(), released.getLong("token"), "the released document keeps its token");
    }
}
