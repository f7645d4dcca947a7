package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.max;
import static io.github.mongolock.mongo.LockDocument.COLLECTION_STATE_ID;
import static io.github.mongolock.mongo.LockDocument.ID;
import static io.github.mongolock.mongo.LockDocument.LEASE_ID;
import static io.github.mongolock.mongo.LockDocument.OWNER;
import static io.github.mongolock.mongo.LockDocument.TOKEN;
import static io.github.mongolock.mongo.LockDocument.TOKEN_FLOOR;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.UpdateOptions;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.core.AcquireAttempt;
import org.bson.Document;

/**
 * Keeps fencing tokens growing per name although idle lock documents are removed: the clean-up raises the
 * collection's token floor to the highest token it removes, before it removes it, and a lock document the
 * acquire creates takes a token above the floor. A name removed with token 41 and created again gets at
 * least 42, so {@code FencedCollection} never sees its tokens go back. Thread-safe.
 *
 * <p>Why it is safe: the removal is a compare-and-set on the free document's version, made after the floor
 * was raised (majority-acknowledged); a document created afterwards exists only once the old one is gone,
 * and its creator reads the floor after creating it (majority read on the primary), so it sees the raise.
 * Between the creation and the token's raise nobody uses the token: the grant is not answered yet.
 */
final class TokenFloor {

    private final MongoCollection<Document> locks;
    private final StoreCalls calls;

    TokenFloor(MongoCollection<Document> locks, StoreCalls calls) {
        this.locks = locks;
        this.calls = calls;
    }

    /** The floor now (0 when no lock document was ever removed). */
    long read(String operation, String name) {
        Document state = calls.call(operation, name, () -> locks.find(eq(ID, COLLECTION_STATE_ID)).first());
        return state != null && state.get(TOKEN_FLOOR) instanceof Number floor ? floor.longValue() : 0;
    }

    /** Raises the floor to at least {@code token}; never lowers it, whoever else raises it at the same time. */
    void raise(long token) {
        calls.call("raise the token floor for", "(idle clean-up)", () -> locks.updateOne(eq(ID, COLLECTION_STATE_ID),
                max(TOKEN_FLOOR, token), new UpdateOptions().upsert(true)));
    }

    /**
     * The grant of a lock document this acquisition just created (token 1): its token raised above the floor
     * first. A failure here leaves the caller's grant unknown, so the coordinator cleans it up as it cleans up
     * a grant whose answer was lost.
     */
    AcquireAttempt grantCreated(String name, String owner, String leaseId) {
        try {
            long floor = read("acquire", name);
            if (floor == 0) {
                return new AcquireAttempt.Granted(1, 1, leaseId);
            }
            long token = floor + 1;
            long matched = calls.call("acquire", name, () -> locks.updateOne(
                    and(eq(ID, name), eq(OWNER, owner), eq(LEASE_ID, leaseId)), max(TOKEN, token))).getMatchedCount();
            // Not ours any more a moment after its creation (its lease cannot have ended yet): granted to nobody.
            return matched == 1 ? new AcquireAttempt.Granted(token, 1, leaseId) : AcquireAttempt.Busy.unknown();
        } catch (LockStoreException failure) {
            throw new LockStoreException("Lock \"" + name + "\" was created for this acquisition, but its fencing token could"
                    + " not be raised above the collection's floor: " + failure.getMessage(), failure, true);
        }
    }
}
