package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;
import static io.github.mongolock.mongo.LockDocument.ACQUIRED_AT;
import static io.github.mongolock.mongo.LockDocument.BEAT;
import static io.github.mongolock.mongo.LockDocument.EARLIER_VERSIONS_LEASE_MS;
import static io.github.mongolock.mongo.LockDocument.FREED_AT;
import static io.github.mongolock.mongo.LockDocument.HOLDS;
import static io.github.mongolock.mongo.LockDocument.ID;
import static io.github.mongolock.mongo.LockDocument.LEASE_ID;
import static io.github.mongolock.mongo.LockDocument.LEASE_MS;
import static io.github.mongolock.mongo.LockDocument.OWNER;
import static io.github.mongolock.mongo.LockDocument.QUEUE;
import static io.github.mongolock.mongo.LockDocument.QUEUE_HEAD;
import static io.github.mongolock.mongo.LockDocument.RELEASED_AT;
import static io.github.mongolock.mongo.LockDocument.RENEWED_AT;
import static io.github.mongolock.mongo.LockDocument.SESSION;
import static io.github.mongolock.mongo.LockDocument.SESSION_HELD;
import static io.github.mongolock.mongo.LockDocument.TOKEN;
import static io.github.mongolock.mongo.LockDocument.TOKEN_PENDING;
import static io.github.mongolock.mongo.LockDocument.VERSION;
import static io.github.mongolock.mongo.LockDocument.number;

import io.github.mongolock.core.AcquireAttempt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.ObjectId;

/**
 * What a grant writes, and what it tells from the answer: the filter of a lock free for a manager, the
 * update that makes an acquisition the owner (whether by a fresh acquisition, a takeover or a hand-over),
 * and the granted token and version computed from the document as it was before. Kept together because the
 * three must agree on the document's counters: the grant moves {@code version}, {@code token} and
 * {@code beat} by one each, and the answer counts on exactly that.
 */
final class LockWrites {

    private LockWrites() {
    }

    /** A lease id of an acquisition held under a session, unique per acquisition, starting with {@value LockDocument#SESSION_HELD}. */
    static String newLeaseId() {
        return SESSION_HELD + new ObjectId().toHexString();
    }

    /**
     * Free, and nobody queued ahead: {@code queue.0} missing (no queue, or an empty one) or this manager.
     * A flat filter, not {@code $and}: the upsert must insert the document under this name, and MongoDB
     * takes {@code _id} from either form, but FerretDB 1.24 only from a top-level equality (from an
     * {@code $and} it inserts a fresh ObjectId, so every acquire would be granted a lock of its own).
     */
    static Bson freeForManager(String name, String manager) {
        return new Document(ID, name).append(HOLDS, 0)
                .append("$or", List.of(exists(QUEUE_HEAD, false), eq(QUEUE_HEAD, manager)));
    }

    /**
     * The grant: {@code owner} holds the lock once under a new lease id and its {@code session}, every counter
     * moves, and the managers {@code unqueued} leave the queue (the grantee's, and a head that let its turn pass).
     * The lock's own {@code leaseMs} is {@link LockDocument#EARLIER_VERSIONS_LEASE_MS}: what an earlier version's
     * waiter sees; the lease is the session's.
     */
    static Bson take(String owner, String session, String leaseId, List<String> unqueued) {
        BsonArray pulled = null;
        if (!unqueued.isEmpty()) {
            pulled = new BsonArray(new ArrayList<>(unqueued.size()));
            for (String manager : unqueued) {
                pulled.add(new BsonString(manager));
            }
        }
        return take(owner, session, leaseId, pulled);
    }

    /**
     * {@link #take(String, String, String, List)} with the managers leaving the queue given as the array the
     * update carries (null: none), built directly as the document the driver sends: the same command as the
     * {@code Updates} form ({@code LockWritesShapeTest} compares them), without rendering it on every call.
     */
    static BsonDocument take(String owner, String session, String leaseId, BsonArray unqueued) {
        BsonDocument grant = new BsonDocument("$set", new BsonDocument(OWNER, new BsonString(owner))
                .append(HOLDS, ONE).append(LEASE_ID, new BsonString(leaseId)).append(SESSION, new BsonString(session))
                .append(LEASE_MS, EARLIER_VERSIONS_LEASE))
                .append("$inc", TAKE_INC).append("$currentDate", TAKE_DATES).append("$unset", TAKE_UNSET)
                .append("$setOnInsert", TAKE_CREATED);
        return unqueued == null ? grant : grant.append("$pullAll", new BsonDocument(QUEUE, unqueued));
    }

    // Shared parts of the commands: never changed after construction, so safe to share between threads.
    private static final BsonInt32 ONE = new BsonInt32(1);
    private static final BsonInt64 EARLIER_VERSIONS_LEASE = new BsonInt64(EARLIER_VERSIONS_LEASE_MS);
    private static final BsonInt64 ONE_LONG = new BsonInt64(1L);
    private static final BsonDocument TAKE_INC = new BsonDocument(VERSION, ONE_LONG).append(TOKEN, ONE_LONG)
            .append(BEAT, ONE_LONG);
    private static final BsonDocument TAKE_DATES = new BsonDocument(ACQUIRED_AT, BsonBoolean.TRUE)
            .append(RENEWED_AT, BsonBoolean.TRUE);
    private static final BsonDocument TAKE_UNSET = new BsonDocument(RELEASED_AT, new BsonString(""))
            .append(FREED_AT, new BsonString(""));
    /** Only an acquire's upsert inserts: the document it creates hands out tokens above the floor (see TokenFloor). */
    private static final BsonDocument TAKE_CREATED = new BsonDocument(TOKEN_PENDING, BsonBoolean.TRUE);
    private static final BsonDocument FREE = new BsonDocument("$set", new BsonDocument(OWNER, BsonNull.VALUE)
            .append(HOLDS, new BsonInt32(0))).append("$inc", new BsonDocument(VERSION, ONE_LONG))
            .append("$currentDate", new BsonDocument(FREED_AT, BsonBoolean.TRUE))
            .append("$unset", new BsonDocument(SESSION, new BsonString("")));
    private static final BsonDocument FREE_BY_HOLDER = new BsonDocument("$set", new BsonDocument(OWNER, BsonNull.VALUE)
            .append(HOLDS, new BsonInt32(0))).append("$inc", new BsonDocument(VERSION, ONE_LONG))
            .append("$currentDate", new BsonDocument(FREED_AT, BsonBoolean.TRUE))
            .append("$unset", new BsonDocument(SESSION, new BsonString("")).append(TOKEN_PENDING, new BsonString("")));
    private static final BsonDocument REENTER = new BsonDocument("$inc", new BsonDocument(HOLDS, ONE)
            .append(VERSION, ONE_LONG)).append("$currentDate", new BsonDocument(RENEWED_AT, BsonBoolean.TRUE));

    /** A nested release's update: {@code holds} holds left, and a new version. */
    static Bson holds(int holds) {
        return new BsonDocument("$set", new BsonDocument(HOLDS, new BsonInt32(holds))).append("$inc", VERSION_UP);
    }

    private static final BsonDocument VERSION_UP = new BsonDocument(VERSION, ONE_LONG);

    /** One more hold and a new version, dated for people: a re-entry's update. */
    static Bson reenter() {
        return REENTER;
    }

    /**
     * The owner's compare-and-set filter: {@code _id}, {@code owner} and {@code version}, in the {@code $and}
     * form {@code Filters.and} renders.
     */
    static BsonDocument ownedAt(String name, String owner, long version) {
        BsonArray all = new BsonArray(new ArrayList<>(3));
        all.add(new BsonDocument(ID, new BsonString(name)));
        all.add(new BsonDocument(OWNER, new BsonString(owner)));
        all.add(new BsonDocument(VERSION, new BsonInt64(version)));
        return new BsonDocument("$and", all);
    }

    /** The parts of the acquire's filter and update that depend on the manager alone, built once per manager. */
    record ManagerTerms(String manager, BsonArray queueFreeFor, BsonArray unqueued) {

        static ManagerTerms of(String manager) {
            BsonArray free = new BsonArray(new ArrayList<>(2));
            free.add(new BsonDocument(QUEUE_HEAD, new BsonDocument("$exists", BsonBoolean.FALSE)));
            free.add(new BsonDocument(QUEUE_HEAD, new BsonString(manager)));
            BsonArray unqueued = new BsonArray(new ArrayList<>(1));
            unqueued.add(new BsonString(manager));
            return new ManagerTerms(manager, free, unqueued);
        }

        /** Whether {@code owner} is an owner id of this manager ({@code <manager>:<n>}, see LockStore#managerOf). */
        boolean owns(String owner) {
            int length = manager.length();
            return owner.length() > length && owner.charAt(length) == ':' && owner.startsWith(manager)
                    && owner.indexOf(':', length + 1) < 0;
        }
    }

    /** {@link #freeForManager(String, String)} with the manager's part built once. */
    static BsonDocument freeForManager(String name, ManagerTerms manager) {
        return new BsonDocument(ID, new BsonString(name)).append(HOLDS, new BsonInt32(0))
                .append("$or", manager.queueFreeFor());
    }

    /**
     * The lock left free by its owner's last release, a resync to no holds, or a clean-up of an orphan: the
     * version moves (every sighting and compare-and-set of the held state is spoilt) and the database's
     * clock dates it for the idle clean-up.
     */
    static Bson free() {
        return FREE;
    }

    /**
     * {@link #free()} by the holder of a grant that was answered: that grant applied the token floor, so the
     * document's token is above it for good and later grants need not read it ({@link LockDocument#TOKEN_PENDING}
     * cleared). Never for a free of an acquisition whose grant went unanswered (an orphan, an abandoned attempt):
     * its grant may not have applied the floor.
     */
    static Bson freeByHolder() {
        return FREE_BY_HOLDER;
    }

    /**
     * A duration as stored, in whole milliseconds rounded up (at least 1): a lease stored shorter than the
     * holder counts it would shorten every waiter's watch, and with it the margin for clock rates.
     */
    static long wholeMillisUp(Duration duration) {
        long millis = duration.toMillis();
        return Math.max(1, duration.equals(Duration.ofMillis(millis)) ? millis : millis + 1);
    }

    /** The grant's answer, from the document before it (null: the upsert created it). */
    static AcquireAttempt.Granted granted(Document before, String leaseId) {
        if (before == null) {
            return new AcquireAttempt.Granted(1, 1, leaseId); // created by this upsert
        }
        return new AcquireAttempt.Granted(number(before, TOKEN) + 1, number(before, VERSION) + 1, leaseId);
    }
}
