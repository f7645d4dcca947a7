package io.github.mongolock.mongo;

import com.mongodb.MongoException;
import com.mongodb.ReadPreference;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.result.UpdateResult;
import io.github.mongolock.FencedWriteRejectedException;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockInterruptedException;
import io.github.mongolock.LockSession;
import io.github.mongolock.VersionConflictException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonDocumentReader;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.codecs.DecoderContext;

/**
 * Optimistic updates of the application's own documents, without a lock: read a document and its version,
 * let a change function compute the new document, and write it only if the version is still the one read;
 * when another writer came first, read again and retry, a bounded number of times. For short
 * read-modify-write changes of one document (a counter, a balance, a status) where holding a lock would
 * cost more than an occasional retry.
 *
 * <p><b>The stored document.</b> This class owns one top-level field, the <em>version</em>
 * ({@value #DEFAULT_VERSION_FIELD} unless {@link #withVersionField chosen}), and with the fenced forms the
 * {@link FencedCollection} fence too:
 * <pre>{@code
 * {
 *   _id:          "counter-1",
 *   count:        NumberLong(41),   // the application's fields
 *   version:      NumberLong(7),    // +1 on every update made here; absent means 0 (never versioned)
 *   fencingToken: NumberLong(12)    // only when written with a token: the highest token seen, as FencedCollection keeps it
 * }
 * }</pre>
 *
 * <p><b>One attempt</b> reads the document by {@code _id} on the primary, calls the change function with it,
 * and writes the difference as {@code $set} / {@code $unset} of top-level fields plus {@code {$inc: {version: 1}}},
 * filtered on {@code {_id, version: <read>}}. One document matched: done. None: another writer changed the
 * document in between; after a pause ({@link ConflictRetries}: jittered, exponential, bounded) the next attempt
 * reads it again. When the attempts run out, {@link VersionConflictException} names the collection, the
 * document and the attempts; nothing was written by the call.
 * <pre>{@code
 * VersionedCollection counters = VersionedCollection.of(db.getCollection("counters"));
 * VersionedUpdate done = counters.update("counter-1", doc -> doc.append("count", doc.getLong("count") + 1))
 *         .orElseThrow();                       // empty: no document "counter-1"
 * log.info("count " + done.document().getLong("count") + " after " + done.attempts() + " attempts");
 * }</pre>
 *
 * <p><b>The change function runs once per attempt</b>, each time on that attempt's fresh read, and only the
 * last run's result is stored. It must be a pure function of the document it is given: a side effect in it
 * (a message sent, a counter in memory) happens once per attempt, {@link VersionedUpdate#attempts()} times. It
 * may change and return the document it is given, or return a new one. It must not change {@code _id}, the
 * version or the fence (leaving them out is fine: they keep their stored values); a field it leaves out is
 * removed. An exception it throws propagates, and nothing is written by that attempt.
 *
 * <p><b>A document that does not exist.</b> {@link #update(Object, UnaryOperator) update} returns empty
 * without calling the change. {@link #updateOrInsert(Object, Function) updateOrInsert} calls it with
 * {@code Optional.empty()} and inserts what it returns with version 1; when another writer inserts the same
 * {@code _id} first (a duplicate key), that is a conflict like any other: the next attempt reads the document
 * and calls the change with it. A duplicate key on another unique index is the driver's exception.
 *
 * <p><b>A document without a version field</b> (written before it was versioned, or by other code) is version
 * 0: the change gets it as it is, and the write, filtered on {@code {version: {$exists: false}}}, gives it version
 * 1. A version field holding anything but a whole number (a string, {@code null}, 2.5) is refused with
 * {@link LockConfigurationException} before the change runs.
 *
 * <p><b>With fencing.</b> The forms taking a {@link LockSession} or a token add the fence of
 * {@link FencedCollection} (same field, same rule: a token lower than the document's fence is refused, an equal
 * one passes) to the same atomic update: {@code {_id, version, $or: [{fence: null}, {fence: {$lte: token}}]}}
 * with {@code $max: {fence: token}}. A document read with a higher fence, or a write refused by the fence, throws
 * {@link FencedWriteRejectedException} and is never retried: a newer holder has the document. Telling a fence
 * refusal from a version conflict costs one read, only when nothing was written.
 *
 * <p><b>Outcomes.</b> A stored update returns a {@link VersionedUpdate}: the document as written (computed
 * from the write, not read back), its new version and the attempts it took. A pause before a retry is
 * interruptible: {@link LockInterruptedException}, with the interrupt flag kept. Driver failures (timeouts, lost
 * connections) propagate unchanged as {@link MongoException}s, as with {@link FencedCollection}: a write whose
 * outcome is unknown is not retried here.
 *
 * <p>Only writers that go through this class (or filter on the version and increment it themselves) are
 * detected: a plain write elsewhere neither checks nor moves the version, and is silently overwritten.
 *
 * <p>Immutable and thread-safe, like the {@link MongoCollection} it wraps, which stays the caller's.
 */
public final class VersionedCollection {

    /** The version field unless another is chosen with {@link #withVersionField}. */
    public static final String DEFAULT_VERSION_FIELD = "version";

    private final MongoCollection<Document> collection;
    private final MongoCollection<BsonDocument> documents;
    private final FencedCollection<Document> fenced;
    private final String versionField;
    private final ConflictRetries retries;

    private VersionedCollection(MongoCollection<Document> collection, String versionField, String fenceField,
                                ConflictRetries retries) {
        if (collection == null) {
            throw new LockConfigurationException("collection must not be null: pass the MongoCollection whose documents"
                    + " are to be updated optimistically.");
        }
        if (!collection.getWriteConcern().isAcknowledged()) {
            throw new LockConfigurationException("Collection " + collection.getNamespace().getFullName()
                    + " has the unacknowledged write concern " + collection.getWriteConcern() + ": a versioned write must"
                    + " be answered to tell whether another writer came first. Use"
                    + " collection.withWriteConcern(WriteConcern.MAJORITY).");
        }
        if (retries == null) {
            throw new LockConfigurationException("retries must not be null: pass e.g. ConflictRetries.defaults().");
        }
        this.versionField = FencedCollection.checkTopLevelField("version", versionField, DEFAULT_VERSION_FIELD);
        this.fenced = FencedCollection.of(collection, fenceField);
        if (versionField.equals(fenced.fenceField())) {
            throw new LockConfigurationException("Version field \"" + versionField + "\" is also the fence field: the"
                    + " version and the fence are two numbers that move differently. Give them different fields.");
        }
        this.collection = collection;
        // Read on the primary: a secondary's older copy would only make the write conflict.
        this.documents = collection.withDocumentClass(BsonDocument.class).withReadPreference(ReadPreference.primary());
        this.retries = retries;
    }

    /** Versioned updates of {@code collection} with the field {@value #DEFAULT_VERSION_FIELD} and {@link ConflictRetries#defaults()}. */
    public static VersionedCollection of(MongoCollection<Document> collection) {
        return new VersionedCollection(collection, DEFAULT_VERSION_FIELD, FencedCollection.DEFAULT_FENCE_FIELD,
                ConflictRetries.defaults());
    }

    /**
     * The same collection versioned with another field: a top-level field name, not {@code _id} nor the fence
     * field, without {@code $}, dots or NUL.
     */
    public VersionedCollection withVersionField(String versionField) {
        return new VersionedCollection(collection, versionField, fenced.fenceField(), retries);
    }

    /** The same collection, whose fenced forms use another fence field (see {@link FencedCollection#withFenceField}). */
    public VersionedCollection withFenceField(String fenceField) {
        return new VersionedCollection(collection, versionField, fenceField, retries);
    }

    /** The same collection, retrying conflicts as {@code retries} says. */
    public VersionedCollection withRetries(ConflictRetries retries) {
        return new VersionedCollection(collection, versionField, fenced.fenceField(), retries);
    }

    /** The wrapped collection: its writes are not versioned. */
    public MongoCollection<Document> collection() {
        return collection;
    }

    /** The top-level field holding each document's version. */
    public String versionField() {
        return versionField;
    }

    /** The top-level field holding each document's fence, written by the fenced forms only. */
    public String fenceField() {
        return fenced.fenceField();
    }

    /** How conflicts are retried. */
    public ConflictRetries retries() {
        return retries;
    }

    /**
     * Reads the document {@code id}, stores what {@code change} makes of it if its version is still the one
     * read, and retries on a fresh read when it is not.
     *
     * @param id     the document's {@code _id}
     * @param change computes the document to store from the stored one; called once per attempt, so it must be a
     *               pure function of its argument
     * @return what was written, with the attempts it took; empty when no document has that {@code _id} (the change
     *         was not called)
     * @throws VersionConflictException when every allowed attempt lost to another writer; nothing was written
     */
    public Optional<VersionedUpdate> update(Object id, UnaryOperator<Document> change) {
        return Optional.ofNullable(run(id, existing(change), false, Fence.NONE));
    }

    /**
     * {@link #update(Object, UnaryOperator)}, fenced with {@code token}: refused, without retry, when the document
     * carries a higher token.
     *
     * @param token a {@link LockSession#fencingToken()}, at least 1
     * @throws FencedWriteRejectedException when the document carries a higher token; nothing was written
     */
    public Optional<VersionedUpdate> update(long token, Object id, UnaryOperator<Document> change) {
        return Optional.ofNullable(run(id, existing(change), false, Fence.of(token)));
    }

    /** {@link #update(long, Object, UnaryOperator)} with {@code lock}'s token; a refusal names the lock. */
    public Optional<VersionedUpdate> update(LockSession lock, Object id, UnaryOperator<Document> change) {
        return Optional.ofNullable(run(id, existing(change), false, Fence.of(lock)));
    }

    /**
     * {@link #update(Object, UnaryOperator)}, or, when no document has that {@code _id}, an insert of what
     * {@code change} returns for {@code Optional.empty()}, with version 1. An insert that loses to another
     * writer's insert of the same {@code _id} is retried as a conflict: the change then gets that document.
     *
     * @param change computes the document to store from the stored one, or from nothing; called once per attempt
     * @return what was written, with the attempts it took and whether it was inserted
     * @throws VersionConflictException when every allowed attempt lost to another writer; nothing was written
     */
    public VersionedUpdate updateOrInsert(Object id, Function<Optional<Document>, Document> change) {
        return run(id, checkChange(change), true, Fence.NONE);
    }

    /**
     * {@link #updateOrInsert(Object, Function)}, fenced with {@code token}: an inserted document carries it as
     * its fence; an existing one is refused, without retry, when it carries a higher token.
     *
     * @param token a {@link LockSession#fencingToken()}, at least 1
     * @throws FencedWriteRejectedException when the document carries a higher token; nothing was written
     */
    public VersionedUpdate updateOrInsert(long token, Object id, Function<Optional<Document>, Document> change) {
        return run(id, checkChange(change), true, Fence.of(token));
    }

    /** {@link #updateOrInsert(long, Object, Function)} with {@code lock}'s token; a refusal names the lock. */
    public VersionedUpdate updateOrInsert(LockSession lock, Object id, Function<Optional<Document>, Document> change) {
        return run(id, checkChange(change), true, Fence.of(lock));
    }

    /** The token a write carries, and the lock it came from when known; {@link #NONE} for an unfenced write. */
    private record Fence(LockSession lock, long token) {
        static final Fence NONE = new Fence(null, 0);

        static Fence of(long token) {
            FencedCollection.checkToken(token);
            return new Fence(null, token);
        }

        static Fence of(LockSession lock) {
            return new Fence(FencedCollection.checkSession(lock), lock.fencingToken());
        }

        boolean on() {
            return token > 0;
        }

        String lockName() {
            return lock == null ? null : lock.name();
        }
    }

    /** @return what was written, or {@code null} when the document is absent and {@code mayInsert} is false */
    private VersionedUpdate run(Object id, Function<Optional<Document>, Document> change, boolean mayInsert, Fence fence) {
        BsonValue key = key(id);
        for (int attempt = 1; attempt <= retries.maxAttempts(); attempt++) {
            if (attempt > 1) {
                pause(key, attempt - 1);
            }
            BsonDocument stored = documents.find(new BsonDocument("_id", key)).first();
            if (stored == null && !mayInsert) {
                return null;
            }
            Optional<VersionedUpdate> written = stored == null
                    ? insert(key, change.apply(Optional.empty()), fence, attempt)
                    : replace(stored, change, fence, attempt);
            if (written.isPresent()) {
                return written.get();
            }
        }
        throw new VersionConflictException(namespace(), describe(key), versionField, retries.maxAttempts());
    }

    /** @return empty when another writer inserted the document first */
    private Optional<VersionedUpdate> insert(BsonValue key, Document created, Fence fence, int attempt) {
        BsonDocument absent = new BsonDocument("_id", key);
        BsonDocument document = ChangedDocument.checked(absent, created, this)
                .written(1, fence.on() ? new BsonInt64(fence.token()) : null);
        try {
            documents.insertOne(document);
        } catch (MongoException failure) {
            if (StoreCalls.isDuplicateKey(failure) && documents.find(absent).first() != null) {
                return Optional.empty(); // the _id is taken now: a conflict, which the next attempt reads
            }
            throw failure; // not a duplicate key, or one on another unique index
        }
        return Optional.of(new VersionedUpdate(decode(document), 1, attempt, true));
    }

    /** @return empty when another writer changed the version since {@code stored} was read */
    private Optional<VersionedUpdate> replace(BsonDocument stored, Function<Optional<Document>, Document> change,
                                              Fence fence, int attempt) {
        if (fence.on()) {
            Optional<FencedWriteRejectedException> refused = fenced.fence().refusalBy(stored, fence.lockName(), fence.token());
            if (refused.isPresent()) {
                throw refused.get(); // before the change runs: its result could never be stored
            }
        }
        long version = version(stored);
        ChangedDocument changed = ChangedDocument.checked(stored, change.apply(Optional.of(decode(stored))), this);
        BsonValue readVersion = stored.get(versionField);
        BsonDocument filter = changed.withReadValues(new BsonDocument("_id", stored.get("_id")).append(versionField,
                readVersion == null ? new BsonDocument("$exists", BsonBoolean.FALSE) : readVersion));
        BsonDocument update = changed.operators();
        UpdateResult result;
        if (!fence.on()) {
            result = collection.updateOne(filter, update);
        } else if (fence.lock() != null) {
            result = fenced.updateOne(fence.lock(), filter, update);
        } else {
            result = fenced.updateOne(fence.token(), filter, update);
        }
        if (result.getMatchedCount() == 0) {
            return Optional.empty();
        }
        BsonValue fenceNow = fence.on() ? new BsonInt64(fence.token()) : stored.get(fenceField());
        BsonDocument written = changed.written(version + 1, fenceNow);
        return Optional.of(new VersionedUpdate(decode(written), version + 1, attempt, false));
    }

    /** The stored version; 0 when the field is absent (a document never versioned). */
    private long version(BsonDocument stored) {
        BsonValue value = stored.get(versionField);
        if (value == null) {
            return 0;
        }
        OptionalLong version = FenceRule.wholeNumber(value);
        if (version.isEmpty()) {
            throw new LockConfigurationException("Document " + describe(stored.get("_id")) + " in " + namespace()
                    + " has " + new BsonDocument(versionField, value).toJson() + ", which is not a version (a whole"
                    + " number, or no field at all for a document never versioned), so it cannot be updated. Another"
                    + " writer uses that field: give VersionedCollection a field of its own with withVersionField(...),"
                    + " or remove the field from the document.");
        }
        return version.getAsLong();
    }

    private void pause(BsonValue key, int conflicts) {
        try {
            TimeUnit.NANOSECONDS.sleep(retries.pauseNanos(conflicts));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException("Interrupted while a versioned update of document " + describe(key)
                    + " in " + namespace() + " paused before retrying, after " + conflicts + " conflicting "
                    + (conflicts == 1 ? "attempt" : "attempts") + "; nothing was written by this call and the interrupt"
                    + " flag is kept.", interrupted);
        }
    }

    private Document decode(BsonDocument document) {
        return collection.getCodecRegistry().get(Document.class)
                .decode(new BsonDocumentReader(document), DecoderContext.builder().build());
    }

    private BsonValue key(Object id) {
        if (id == null) {
            throw new LockConfigurationException("id must not be null: pass the _id of the document to update.");
        }
        return new Document("_id", id).toBsonDocument(BsonDocument.class, collection.getCodecRegistry()).get("_id");
    }

    private static Function<Optional<Document>, Document> existing(UnaryOperator<Document> change) {
        checkChange(change);
        return stored -> change.apply(stored.orElseThrow());
    }

    private static <F> F checkChange(F change) {
        if (change == null) {
            throw new LockConfigurationException("change must not be null: pass the function that computes the document"
                    + " to store from the stored one.");
        }
        return change;
    }

    private static String describe(BsonValue key) {
        return new BsonDocument("_id", key).toJson();
    }

    private String namespace() {
        return collection.getNamespace().getFullName();
    }

    @Override
    public String toString() {
        return "VersionedCollection[" + namespace() + ", version field \"" + versionField + "\", fence field \""
                + fenceField() + "\", " + retries + "]";
    }
}
