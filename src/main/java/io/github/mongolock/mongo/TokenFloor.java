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
import static io.github.mongolock.mongo.LockDocument.TOKEN_PENDING;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.UpdateOptions;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.core.AcquireAttempt;
import org.bson.Document;

/**
 * Keeps fencing tokens growing per name although idle lock documents are removed: the clean-up raises the
 * collection's token floor to the highest token it removes, before it removes it, and a lock document created
 * again hands out tokens above it. A name removed with token 41 and created again gets at least 42, so
 * {@code FencedCollection} never sees its tokens go back. Thread-safe.
 *
 * <p><b>The floor is a property of the created document.</b> The acquire that creates a document inserts it with
 * {@value LockDocument#TOKEN_PENDING}{@code : true}, and every grant (by anyone: the creator, a waiter that takes
 * the document over, a later acquire) whose document was created by it or still shows the flag reads the floor and
 * raises its token above it, by a compare-and-set on its own owner and lease id, before answering. So no grant is
 * answered with a token below the floor, whatever freed or took the document between its creation and the raise
 * (the creator's floor read failing and its attempt abandoned, a late upsert freed as an orphan, a creator paused
 * past its lease, an operator's release). Only the last release of a holder whose grant was answered (so applied
 * the floor) clears the flag ({@link LockWrites#freeByHolder}); frees by anyone else leave it.
 *
 * <p><b>Why the floor read is current.</b> The removal is a compare-and-set on the free document's version, made
 * after the floor was raised (majority-acknowledged); a document created afterwards exists only once the old one
 * is gone. The grant reads the floor by a write ({@link #readCurrent}: a findAndModify that changes nothing), which
 * the primary runs on its latest data and acknowledges only once a majority has it: a newly elected primary that
 * would answer a majority <em>read</em> from an older snapshot (SERVER-53813) cannot answer it with a floor from
 * before the raise. (Reasoned from the server's documented behaviour; the stand-in is linearizable.)
 */
final class TokenFloor {

    private static final FindOneAndUpdateOptions BEFORE = new FindOneAndUpdateOptions().returnDocument(ReturnDocument.BEFORE);

    private final MongoCollection<Document> locks;
    private final StoreCalls calls;

    TokenFloor(MongoCollection<Document> locks, StoreCalls calls) {
        this.locks = locks;
        this.calls = calls;
    }

    /** The floor now (0 when no lock document was ever removed), read by a write that no stale snapshot answers. */
    long readCurrent(String operation, String name) {
        Document state = calls.call(operation, name, () -> locks.findOneAndUpdate(eq(ID, COLLECTION_STATE_ID),
                max(TOKEN_FLOOR, 0L), BEFORE));
        return state != null && state.get(TOKEN_FLOOR) instanceof Number floor ? floor.longValue() : 0;
    }

    /** Raises the floor to at least {@code token}; never lowers it, whoever else raises it at the same time. */
    void raise(long token) {
        calls.call("raise the token floor for", "(idle clean-up)", () -> locks.updateOne(eq(ID, COLLECTION_STATE_ID),
                max(TOKEN_FLOOR, token), new UpdateOptions().upsert(true)));
    }

    /**
     * The answer to a grant whose compare-and-set matched, from the document as it was before it ({@code null}: the
     * acquire's upsert created it): the token and version it wrote, and, where the document was created by it or
     * still waits for its floor, the token raised above the floor first. A failure of the floor's read or raise
     * leaves the grant unknown to the caller, so the coordinator cleans it up as it cleans up a grant whose answer
     * was lost; the flag stays, and the next grant applies the floor.
     */
    AcquireAttempt granted(String name, String owner, Document before, String leaseId) {
        if (before != null && !Boolean.TRUE.equals(before.get(TOKEN_PENDING))) {
            return LockWrites.granted(before, leaseId);
        }
        AcquireAttempt.Granted written = LockWrites.granted(before, leaseId);
        try {
            long floor = readCurrent("acquire", name);
            if (floor < written.fencingToken()) {
                return written;
            }
            long token = floor + 1;
            long matched = calls.call("acquire", name, () -> locks.updateOne(
                    and(eq(ID, name), eq(OWNER, owner), eq(LEASE_ID, leaseId)), max(TOKEN, token))).getMatchedCount();
            // Not ours any more (our lease ended before the raise, and someone took it: its grant applies the floor).
            return matched == 1 ? new AcquireAttempt.Granted(token, written.version(), leaseId) : AcquireAttempt.Busy.unknown();
        } catch (LockStoreException failure) {
            throw new LockStoreException("Lock \"" + name + "\" was granted to this acquisition, but its fencing token could"
                    + " not be raised above the collection's floor: " + failure.getMessage(), failure, true);
        }
    }
}
