package io.github.mongolock;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.types.ObjectId;

/**
 * The measuring half of {@link HotPathBudgetTest}'s allocation guard, run in a JVM of its own: bytes allocated
 * on the calling thread per uncontended acquire + close of a {@link MongoLockManager}, and per cycle of the same
 * two commands sent as raw driver calls (the driver allocates on the calling thread too). After 2,000 warm-up
 * cycles of each, six interleaved rounds of 500; per case the lowest round is kept (a round that met a
 * compilation or a collection on this thread only adds bytes). Prints {@value #RESULT} then both figures.
 *
 * <p>Arguments: the MongoDB URI and a database to use.
 */
final class HotPathAllocationProbe {

    static final String RESULT = "[allocation probe] mongolock raw:";
    private static final int WARM_UP = 2_000;
    private static final int ROUNDS = 6;
    private static final int PER_ROUND = 500;

    private HotPathAllocationProbe() {
    }

    public static void main(String[] args) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        threads.setThreadAllocatedMemoryEnabled(true);
        String database = args[1];
        try (MongoClient client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(args[0])).build());
             MongoLockManager manager = MongoLockManager.builder().client(client).database(database).build()) {
            Runnable rawCycle = rawCycle(client, database);
            Runnable lockCycle = () -> manager.acquire("cycle").close();
            for (int i = 0; i < WARM_UP; i++) {
                rawCycle.run();
                lockCycle.run();
            }
            long raw = Long.MAX_VALUE;
            long lock = Long.MAX_VALUE;
            for (int round = 0; round < ROUNDS; round++) {
                raw = Math.min(raw, bytesPerCycle(threads, rawCycle));
                lock = Math.min(lock, bytesPerCycle(threads, lockCycle));
            }
            System.out.println(RESULT + " " + lock + " " + raw);
        }
    }

    /**
     * The two commands mongolock sends (same filters, same updates, same concerns and timeout), built the
     * cheapest way a driver user can: as BSON documents, the constant parts once.
     */
    private static Runnable rawCycle(MongoClient client, String database) {
        MongoCollection<BsonDocument> raw = client.getDatabase(database).getCollection("raw_cycle", BsonDocument.class)
                .withWriteConcern(WriteConcern.MAJORITY).withReadPreference(ReadPreference.primary())
                .withReadConcern(ReadConcern.MAJORITY).withTimeout(10_000, TimeUnit.MILLISECONDS);
        FindOneAndUpdateOptions upsert = new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.BEFORE);
        String managerId = "host-1234-abcd:0123456789abcdef0123456789abcdef";
        String owner = managerId + ":1";
        BsonArray queueFree = new BsonArray(List.of(
                new BsonDocument("queue.0", new BsonDocument("$exists", BsonBoolean.FALSE)),
                new BsonDocument("queue.0", new BsonString(managerId))));
        BsonDocument increments = BsonDocument.parse("{version: {$numberLong: '1'}, token: {$numberLong: '1'},"
                + " beat: {$numberLong: '1'}}");
        BsonDocument dates = BsonDocument.parse("{acquiredAt: true, renewedAt: true}");
        BsonDocument unsets = BsonDocument.parse("{releasedAt: '', freedAt: ''}");
        BsonDocument pulled = new BsonDocument("queue", new BsonArray(List.of(new BsonString(managerId))));
        BsonDocument free = BsonDocument.parse("{$set: {owner: null, holds: 0}, $inc: {version: {$numberLong: '1'}},"
                + " $currentDate: {freedAt: true}, $unset: {session: ''}}");
        BsonString session = new BsonString(new ObjectId().toHexString());
        return () -> {
            BsonDocument take = new BsonDocument("$set", new BsonDocument("owner", new BsonString(owner))
                    .append("holds", new BsonInt32(1)).append("leaseId", new BsonString("s" + new ObjectId().toHexString()))
                    .append("session", session).append("leaseMs", new BsonInt64(3_153_600_000_000L)))
                    .append("$inc", increments).append("$currentDate", dates).append("$unset", unsets)
                    .append("$pullAll", pulled);
            BsonDocument before = raw.findOneAndUpdate(new BsonDocument("_id", new BsonString("raw"))
                    .append("holds", new BsonInt32(0)).append("$or", queueFree), take, upsert);
            long version = before == null ? 1 : before.getNumber("version").longValue() + 1;
            BsonDocument owned = new BsonDocument("$and", new BsonArray(List.of(new BsonDocument("_id", new BsonString("raw")),
                    new BsonDocument("owner", new BsonString(owner)), new BsonDocument("version", new BsonInt64(version)))));
            if (raw.updateOne(owned, free).getMatchedCount() != 1) {
                throw new IllegalStateException("the raw cycle's release matched nothing");
            }
        };
    }

    private static long bytesPerCycle(com.sun.management.ThreadMXBean threads, Runnable cycle) {
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < PER_ROUND; i++) {
            cycle.run();
        }
        return (threads.getThreadAllocatedBytes(thread) - before) / PER_ROUND;
    }
}
