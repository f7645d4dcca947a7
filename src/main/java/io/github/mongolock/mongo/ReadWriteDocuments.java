package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.elemMatch;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.push;
import static io.github.mongolock.mongo.LockDocument.ID;
import static io.github.mongolock.mongo.LockDocument.OWNER;
import static io.github.mongolock.mongo.LockDocument.SESSION;
import static io.github.mongolock.mongo.LockDocument.TOKEN;
import static io.github.mongolock.mongo.LockDocument.VERSION;
import static io.github.mongolock.mongo.LockDocument.number;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import io.github.mongolock.core.PermitAttempt;
import io.github.mongolock.core.ReadWriteStore;
import java.util.Optional;
import org.bson.Document;

/**
 * The leased read-write locks of {@link MongoLockStore}: the semaphore's document (spec/RWLOCK-DESIGN.md) under
 * {@code _id: {mongolock: "rw", name}}, with {@code limit} {@link ReadWriteStore#WHOLE}, read holds of 1 permit, write
 * holds of the whole limit, and {@code queue} listing the managers with a waiting writer:
 *
 * <ul>
 *   <li>a read grant matches {@code used <= L - 1} and an empty queue (writer preference: no reader passes a queued
 *       writer);</li>
 *   <li>a write grant matches {@code used <= 0} and the semaphore's queue rule (nobody queued, or this manager
 *       first), and takes its manager out of the queue;</li>
 *   <li>a downgrade adds a read entry for the write holder's caller, filtered on its write entry, not on the room;</li>
 *   <li>release, take-back of an ended session's entries, the queue's join, turn and gone-head take-out, and the
 *       session check are the semaphore's writes.</li>
 * </ul>
 * Thread-safe.
 */
final class ReadWriteDocuments extends PermitDocuments implements ReadWriteStore {

    static final String RW_KIND = "rw";
    private static final FindOneAndUpdateOptions BEFORE = new FindOneAndUpdateOptions().returnDocument(ReturnDocument.BEFORE);

    ReadWriteDocuments(MongoCollection<Document> locks, StoreCalls calls, SessionDocuments sessions) {
        super(locks, calls, sessions, RW_KIND);
    }

    @Override
    Document queueRule(int limit, int permits, String manager) {
        if (permits < limit) {
            return new Document(LockDocument.QUEUE_HEAD, new Document("$exists", false)); // a reader: no writer waits
        }
        return super.queueRule(limit, permits, manager);
    }

    @Override
    public PermitAttempt downgrade(String name, String writeOwner, String owner, String session) {
        Document entry = new Document(OWNER, owner).append(SESSION, session).append(PERMITS, 1);
        Document before = calls.call("downgrade the write lock of", name, () -> locks.findOneAndUpdate(
                and(eq(ID, idOf(name)), elemMatch(HOLDERS, new Document(OWNER, writeOwner).append(PERMITS, WHOLE))),
                combine(push(HOLDERS, entry), inc(USED, 1), inc(VERSION, 1L), inc(TOKEN, 1L),
                        currentDate(LockDocument.ACQUIRED_AT)), BEFORE));
        return before == null ? PermitAttempt.Busy.unknown()
                : new PermitAttempt.Granted(number(before, TOKEN) + 1, number(before, VERSION) + 1);
    }
}
