package io.github.mongolock.mongo;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.result.UpdateResult;
import io.github.mongolock.FencedWriteRejectedException;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockSession;
import org.bson.BsonDocument;
import org.bson.BsonDocumentWriter;
import org.bson.BsonInt64;
import org.bson.codecs.Codec;
import org.bson.codecs.EncoderContext;
import org.bson.conversions.Bson;

/**
 * Writes to an application's own collection that MongoDB refuses when they carry an older fencing
 * token than the document has already seen: the protection a lease cannot give against a holder that
 * was paused (GC, {@code SIGSTOP}, a frozen VM) past its lease and writes after another holder took over.
 *
 * <p><b>The stored document.</b> Each document written through this class keeps, in one top-level field
 * (the <em>fence</em>, {@value #DEFAULT_FENCE_FIELD} unless {@link #withFenceField chosen}), the highest
 * token that has read-for-update or written it:
 * <pre>{@code
 * {
 *   _id:          "acct-42",
 *   balance:      NumberLong(130),   // the application's fields, untouched
 *   fencingToken: NumberLong(8)      // the fence: the highest LockSession.fencingToken() seen; absent or null = never fenced
 * }
 * }</pre>
 * Every operation adds {@code {$or: [{fence: null}, {fence: {$lte: token}}]}} to the filter and
 * {@code {$max: {fence: token}}} to the update (a replacement gets {@code fence: token}), in the same
 * atomic update: a write with token 7 lands only while the document has seen no token above 7, and
 * raises the fence to 7. An equal token is accepted, so a holder (and its re-entrant holds) may write
 * a document any number of times.
 *
 * <p><b>Read-modify-write.</b> Refusing stale writes is not enough: a paused holder could write after
 * the next holder was granted the lock but before that holder's first write. The next holder's
 * <em>read</em> must register its token too, which {@link #findOneAndUpdate} does (an empty update,
 * {@code new Document()}, only reads and registers):
 * <pre>{@code
 * FencedCollection<Document> accounts = FencedCollection.of(database.getCollection("accounts"));
 * try (LockSession lock = locks.acquire("account-" + id)) {
 *     Document account = accounts.findOneAndUpdate(lock, eq("_id", id), new Document()); // read, and fence off older tokens
 *     long balance = account.getLong("balance") - cents;                                   // work that takes a while
 *     accounts.updateOne(lock, eq("_id", id), set("balance", balance));                    // refused if a later holder came
 * }
 * }</pre>
 *
 * <p><b>Outcomes.</b> A write that MongoDB took returns the driver's usual result. A write refused by the
 * fence throws {@link FencedWriteRejectedException} (a {@link io.github.mongolock.LockLostException})
 * naming the collection, the document, the token used and the higher one the document carries; nothing
 * was written. A filter that matches no document returns the driver's "nothing matched" result
 * ({@code matchedCount 0}, or {@code null}), as {@link MongoCollection} does. Telling those two apart costs
 * one extra read, on the primary, only when nothing was written. Driver failures (timeouts, lost
 * connections, validation errors) propagate unchanged as {@link MongoException}s: this is the
 * application's collection, with its own write concern, read concern and timeouts.
 *
 * <p><b>Upserts</b> are fenced when the filter names the document through a unique index, typically
 * {@code _id}: a document with a higher fence makes the insert fail with a duplicate key, which is
 * reported as {@link FencedWriteRejectedException} (a duplicate key on some other unique index stays the
 * driver's exception). With a filter no unique index covers, a refused match becomes the insert of a
 * second document.
 *
 * <p><b>What it does not do.</b> Only writes made through this class are fenced; a write made elsewhere
 * neither checks nor raises the fence (and one that replaces the document or unsets the field forgets it).
 * Deleting a document forgets its fence: a stale holder's upsert could then create it again. Filters
 * should name one document: with a filter matching several, the first one that accepts the token is
 * written. The fence is only as durable as the collection's write concern (a write rolled back by a
 * failover takes its fence with it; use majority). It does not ask {@link LockSession#isHeld()}: MongoDB
 * decides, by the token alone. Aggregation-pipeline updates ({@code List<Bson>}) are not offered: write
 * the update with operators. Updates must not touch the fence field themselves.
 *
 * <p>Immutable and thread-safe, like the {@link MongoCollection} it wraps, which stays the caller's.
 *
 * @param <T> the collection's document class
 */
public final class FencedCollection<T> {

    /** The fence field unless another is chosen with {@link #withFenceField}. */
    public static final String DEFAULT_FENCE_FIELD = "fencingToken";

    private final MongoCollection<T> collection;
    private final String fenceField;
    private final FenceRule fence;

    private FencedCollection(MongoCollection<T> collection, String fenceField) {
        if (collection == null) {
            throw new LockConfigurationException("collection must not be null: pass the MongoCollection whose writes"
                    + " are to be fenced.");
        }
        if (!collection.getWriteConcern().isAcknowledged()) {
            throw new LockConfigurationException("Collection " + collection.getNamespace().getFullName()
                    + " has the unacknowledged write concern " + collection.getWriteConcern() + ": a fenced write must be"
                    + " answered to tell whether it was refused. Use collection.withWriteConcern(WriteConcern.MAJORITY).");
        }
        this.collection = collection;
        this.fenceField = checkFenceField(fenceField);
        this.fence = new FenceRule(collection, this.fenceField);
    }

    /** Fences writes to {@code collection} with the field {@value #DEFAULT_FENCE_FIELD}. */
    public static <T> FencedCollection<T> of(MongoCollection<T> collection) {
        return new FencedCollection<>(collection, DEFAULT_FENCE_FIELD);
    }

    /**
     * Fences writes to {@code collection} with {@code fenceField}: a top-level field name, not {@code _id},
     * without {@code $}, dots or NUL.
     */
    public static <T> FencedCollection<T> of(MongoCollection<T> collection, String fenceField) {
        return new FencedCollection<>(collection, fenceField);
    }

    /** The same collection fenced with another field (see {@link #of(MongoCollection, String)}). */
    public FencedCollection<T> withFenceField(String fenceField) {
        return new FencedCollection<>(collection, fenceField);
    }

    /** The wrapped collection: its writes are not fenced. */
    public MongoCollection<T> collection() {
        return collection;
    }

    /** The top-level field holding each document's fence. */
    public String fenceField() {
        return fenceField;
    }

    /** The rule of this collection's fence, for {@link VersionedCollection} to apply to a document it read. */
    FenceRule fence() {
        return fence;
    }

    /** {@link #updateOne(long, Bson, Bson, UpdateOptions)} with default options. */
    public UpdateResult updateOne(long token, Bson filter, Bson update) {
        return updateOne(token, filter, update, new UpdateOptions());
    }

    /**
     * Updates the first document matching {@code filter} whose fence is at most {@code token}, and raises
     * its fence to {@code token}, in one atomic update.
     *
     * @param token   the holder's {@link LockSession#fencingToken()}, at least 1
     * @param update  update operators ({@code $set}, {@code $inc}, ...; empty to only register the token),
     *                none of them on the fence field
     * @return the driver's result; {@code matchedCount 0} (and no upserted id) when no document matches {@code filter}
     * @throws FencedWriteRejectedException when the document carries a higher token; nothing was written
     */
    public UpdateResult updateOne(long token, Bson filter, Bson update, UpdateOptions options) {
        return updateOne(null, token, filter, update, options);
    }

    /** {@link #updateOne(long, Bson, Bson)} with {@code lock}'s token; a refusal names the lock. */
    public UpdateResult updateOne(LockSession lock, Bson filter, Bson update) {
        return updateOne(lock, filter, update, new UpdateOptions());
    }

    /** {@link #updateOne(long, Bson, Bson, UpdateOptions)} with {@code lock}'s token; a refusal names the lock. */
    public UpdateResult updateOne(LockSession lock, Bson filter, Bson update, UpdateOptions options) {
        return updateOne(checkSession(lock).name(), lock.fencingToken(), filter, update, options);
    }

    /** {@link #findOneAndUpdate(long, Bson, Bson, FindOneAndUpdateOptions)} with default options (returns the document as it was before). */
    public T findOneAndUpdate(long token, Bson filter, Bson update) {
        return findOneAndUpdate(token, filter, update, new FindOneAndUpdateOptions());
    }

    /**
     * The fenced read-for-update: reads the first document matching {@code filter} whose fence is at most
     * {@code token}, applies {@code update} and raises its fence to {@code token}, in one atomic
     * {@code findAndModify}. From then on no older token can write it. Pass an empty update
     * ({@code new Document()}) to only read and register.
     *
     * @param token the holder's {@link LockSession#fencingToken()}, at least 1
     * @return the document as the options ask (before the update by default), or {@code null} when no
     *         document matches {@code filter} (or, with upsert and the "before" image, when it was inserted)
     * @throws FencedWriteRejectedException when the document carries a higher token; nothing was written
     */
    public T findOneAndUpdate(long token, Bson filter, Bson update, FindOneAndUpdateOptions options) {
        return findOneAndUpdate(null, token, filter, update, options);
    }

    /** {@link #findOneAndUpdate(long, Bson, Bson)} with {@code lock}'s token; a refusal names the lock. */
    public T findOneAndUpdate(LockSession lock, Bson filter, Bson update) {
        return findOneAndUpdate(lock, filter, update, new FindOneAndUpdateOptions());
    }

    /** {@link #findOneAndUpdate(long, Bson, Bson, FindOneAndUpdateOptions)} with {@code lock}'s token; a refusal names the lock. */
    public T findOneAndUpdate(LockSession lock, Bson filter, Bson update, FindOneAndUpdateOptions options) {
        return findOneAndUpdate(checkSession(lock).name(), lock.fencingToken(), filter, update, options);
    }

    /** {@link #replaceOne(long, Bson, Object, ReplaceOptions)} with default options. */
    public UpdateResult replaceOne(long token, Bson filter, T replacement) {
        return replaceOne(token, filter, replacement, new ReplaceOptions());
    }

    /**
     * Replaces the first document matching {@code filter} whose fence is at most {@code token} with
     * {@code replacement} plus the fence set to {@code token} (a value the replacement carries in the fence
     * field is replaced: the fence belongs to this class).
     *
     * @param token the holder's {@link LockSession#fencingToken()}, at least 1
     * @return the driver's result; {@code matchedCount 0} (and no upserted id) when no document matches {@code filter}
     * @throws FencedWriteRejectedException when the document carries a higher token; nothing was written
     */
    public UpdateResult replaceOne(long token, Bson filter, T replacement, ReplaceOptions options) {
        return replaceOne(null, token, filter, replacement, options);
    }

    /** {@link #replaceOne(long, Bson, Object)} with {@code lock}'s token; a refusal names the lock. */
    public UpdateResult replaceOne(LockSession lock, Bson filter, T replacement) {
        return replaceOne(lock, filter, replacement, new ReplaceOptions());
    }

    /** {@link #replaceOne(long, Bson, Object, ReplaceOptions)} with {@code lock}'s token; a refusal names the lock. */
    public UpdateResult replaceOne(LockSession lock, Bson filter, T replacement, ReplaceOptions options) {
        return replaceOne(checkSession(lock).name(), lock.fencingToken(), filter, replacement, options);
    }

    private UpdateResult updateOne(String lockName, long token, Bson filter, Bson update, UpdateOptions options) {
        checkToken(token);
        checkNotNull(filter, "filter");
        checkNotNull(update, "update");
        checkNotNull(options, "options");
        BsonDocument fencedUpdate = fence.fencedUpdate(update, token);
        UpdateResult result;
        try {
            result = collection.updateOne(fence.fencedFilter(filter, token), fencedUpdate, options);
        } catch (MongoException failure) {
            throw fence.refusedOr(failure, options.isUpsert(), lockName, token, filter, options.getCollation());
        }
        if (result.getMatchedCount() == 0 && result.getUpsertedId() == null) {
            fence.throwIfRefused(lockName, token, filter, options.getCollation());
        }
        return result;
    }

    private T findOneAndUpdate(String lockName, long token, Bson filter, Bson update, FindOneAndUpdateOptions options) {
        checkToken(token);
        checkNotNull(filter, "filter");
        checkNotNull(update, "update");
        checkNotNull(options, "options");
        BsonDocument fencedUpdate = fence.fencedUpdate(update, token);
        T found;
        try {
            found = collection.findOneAndUpdate(fence.fencedFilter(filter, token), fencedUpdate, options);
        } catch (MongoException failure) {
            throw fence.refusedOr(failure, options.isUpsert(), lockName, token, filter, options.getCollation());
        }
        // With upsert, null is the "before" image of an insert: a refused upsert fails with a duplicate key instead.
        if (found == null && !options.isUpsert()) {
            fence.throwIfRefused(lockName, token, filter, options.getCollation());
        }
        return found;
    }

    private UpdateResult replaceOne(String lockName, long token, Bson filter, T replacement, ReplaceOptions options) {
        checkToken(token);
        checkNotNull(filter, "filter");
        checkNotNull(replacement, "replacement");
        checkNotNull(options, "options");
        BsonDocument fenced = encode(replacement);
        fenced.put(fenceField, new BsonInt64(token));
        UpdateResult result;
        try {
            result = collection.withDocumentClass(BsonDocument.class).replaceOne(fence.fencedFilter(filter, token), fenced, options);
        } catch (MongoException failure) {
            throw fence.refusedOr(failure, options.isUpsert(), lockName, token, filter, options.getCollation());
        }
        if (result.getMatchedCount() == 0 && result.getUpsertedId() == null) {
            fence.throwIfRefused(lockName, token, filter, options.getCollation());
        }
        return result;
    }

    @SuppressWarnings("unchecked")
    private BsonDocument encode(T replacement) {
        Codec<T> codec = collection.getCodecRegistry().get((Class<T>) replacement.getClass());
        BsonDocument encoded = new BsonDocument();
        codec.encode(new BsonDocumentWriter(encoded), replacement,
                EncoderContext.builder().isEncodingCollectibleDocument(true).build());
        return encoded;
    }


    static void checkToken(long token) {
        if (token < 1) {
            throw new LockConfigurationException("Fencing token " + token + " is not a token: tokens start at 1 and grow"
                    + " with every fresh acquisition. Pass the fencingToken() of the LockSession that holds the lock.");
        }
    }

    static LockSession checkSession(LockSession lock) {
        if (lock == null) {
            throw new LockConfigurationException("lock must not be null: pass the LockSession whose fencing token the"
                    + " write carries.");
        }
        return lock;
    }

    private static void checkNotNull(Object value, String parameter) {
        if (value == null) {
            throw new LockConfigurationException(parameter + " must not be null: pass a value as for MongoCollection"
                    + (parameter.equals("options") ? " (e.g. new UpdateOptions())." : "."));
        }
    }

    private static String checkFenceField(String field) {
        return checkTopLevelField("fence", field, DEFAULT_FENCE_FIELD);
    }

    /**
     * The rule for a field this package owns in the application's documents (the fence, the version): a
     * top-level name, not {@code _id}, without {@code $}, {@code .} or NUL.
     *
     * @param role what the field is, lower case ("fence"), for the message
     */
    static String checkTopLevelField(String role, String field, String example) {
        String name = Character.toUpperCase(role.charAt(0)) + role.substring(1) + " field ";
        String rule = ": the " + role + " field must be a top-level field name, not _id, without '$', '.' or NUL,"
                + " e.g. \"" + example + "\".";
        if (field == null || field.isEmpty()) {
            throw new LockConfigurationException(name + (field == null ? "null" : "\"\"") + " is not allowed" + rule);
        }
        if (field.equals("_id")) {
            throw new LockConfigurationException(name + "\"_id\" is not allowed: a document's _id cannot change"
                    + rule);
        }
        if (field.indexOf('.') >= 0) {
            throw new LockConfigurationException(name + "\"" + field + "\" is a path into an embedded document, which"
                    + " is not supported" + rule);
        }
        if (field.indexOf('$') >= 0 || field.indexOf('\0') >= 0) {
            throw new LockConfigurationException(name + "\"" + field + "\" contains "
                    + (field.indexOf('$') >= 0 ? "'$'" : "NUL") + rule);
        }
        return field;
    }

    @Override
    public String toString() {
        return "FencedCollection[" + collection.getNamespace().getFullName() + ", fence field \"" + fenceField + "\"]";
    }
}
