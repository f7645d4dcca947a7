package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.pullAll;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.unset;
import static io.github.mongolock.mongo.LockDocument.ACQUIRED_AT;
import static io.github.mongolock.mongo.LockDocument.BEAT;
import static io.github.mongolock.mongo.LockDocument.BEAT_RENEWED;
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
import static io.github.mongolock.mongo.LockDocument.TOKEN;
import static io.github.mongolock.mongo.LockDocument.VERSION;
import static io.github.mongolock.mongo.LockDocument.number;

import io.github.mongolock.core.AcquireAttempt;
import java.time.Duration;
import java.util.List;
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

    /** A lease id of this version's holders, unique per acquisition, starting with {@value LockDocument#BEAT_RENEWED}. */
    static String newLeaseId() {
        return BEAT_RENEWED + new ObjectId().toHexString();
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
     * The grant: {@code owner} holds the lock once under a new lease id, every counter moves, and the managers
     * {@code unqueued} leave the queue (the grantee's, and a head that let its turn pass).
     */
    static Bson take(String owner, Duration lease, String leaseId, List<String> unqueued) {
        Bson grant = combine(set(OWNER, owner), set(HOLDS, 1), set(LEASE_ID, leaseId), set(LEASE_MS, wholeMillisUp(lease)),
                inc(VERSION, 1L), inc(TOKEN, 1L), inc(BEAT, 1L), currentDate(ACQUIRED_AT), currentDate(RENEWED_AT),
                unset(RELEASED_AT), unset(FREED_AT));
        return unqueued.isEmpty() ? grant : combine(grant, pullAll(QUEUE, unqueued));
    }

    /**
     * The lock left free by its owner's last release, a resync to no holds, or a clean-up of an orphan: the
     * version moves (every sighting and compare-and-set of the held state is spoilt) and the database's
     * clock dates it for the idle clean-up.
     */
    static Bson free() {
        return combine(set(OWNER, null), set(HOLDS, 0), inc(VERSION, 1L), currentDate(FREED_AT));
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
