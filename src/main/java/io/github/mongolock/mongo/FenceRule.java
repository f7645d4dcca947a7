package io.github.mongolock.mongo;

import com.mongodb.MongoException;
import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.client.FindIterable;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Collation;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import io.github.mongolock.FencedWriteRejectedException;
import io.github.mongolock.LockConfigurationException;
import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.bson.conversions.Bson;
import org.bson.types.Decimal128;

/**
 * The fence of {@link FencedCollection}, one field in one collection: the rule a token must pass (added to a
 * write's filter, and its {@code $max} to the write's update) and, when a write changed nothing, the refusal
 * it gets (telling a fence that kept the token out from a filter that matched nothing). Separate from the
 * write operations so that the rule is written once for all of them, and {@link VersionedCollection} applies
 * the same rule to a document it has read. Immutable and thread-safe.
 */
final class FenceRule {

    private final MongoCollection<?> collection;
    private final String fenceField;

    /** @param fenceField already checked ({@link FencedCollection#checkTopLevelField}) */
    FenceRule(MongoCollection<?> collection, String fenceField) {
        this.collection = collection;
        this.fenceField = fenceField;
    }

    /** The caller's filter, narrowed to documents whose fence lets {@code token} pass. */
    Bson fencedFilter(Bson filter, long token) {
        // {fence: null} matches a missing field too: a document never fenced, or one whose fence was unset.
        return Filters.and(filter, Filters.or(Filters.eq(fenceField, null), Filters.lte(fenceField, token)));
    }

    /** The caller's update operators plus {@code $max: {fence: token}}, merged into an existing {@code $max}. */
    BsonDocument fencedUpdate(Bson update, long token) {
        BsonDocument given = update.toBsonDocument(BsonDocument.class, collection.getCodecRegistry());
        BsonDocument fenced = new BsonDocument();
        for (Map.Entry<String, BsonValue> operator : given.entrySet()) {
            String name = operator.getKey();
            if (!name.startsWith("$") || !operator.getValue().isDocument()) {
                throw new LockConfigurationException("The update " + given.toJson() + " is not a document of update"
                        + " operators such as {$set: {...}}: FencedCollection adds {$max: {" + fenceField + ": token}} to it."
                        + " To replace the whole document, use replaceOne.");
            }
            for (Map.Entry<String, BsonValue> field : operator.getValue().asDocument().entrySet()) {
                boolean renamedToFence = "$rename".equals(name) && field.getValue().isString()
                        && touchesFence(field.getValue().asString().getValue());
                if (touchesFence(field.getKey()) || renamedToFence) {
                    throw new LockConfigurationException("The update " + given.toJson() + " changes \"" + fenceField
                            + "\" with " + name + ": that field is the fence, which FencedCollection alone writes"
                            + " ({$max: {" + fenceField + ": token}}). Leave it out of the update, or give"
                            + " FencedCollection another field with withFenceField(...).");
                }
            }
            fenced.put(name, operator.getValue());
        }
        BsonDocument max = fenced.containsKey("$max") ? fenced.getDocument("$max").clone() : new BsonDocument();
        max.put(fenceField, new BsonInt64(token));
        fenced.put("$max", max);
        return fenced;
    }

    private boolean touchesFence(String path) {
        return path.equals(fenceField) || path.startsWith(fenceField + ".");
    }

    /**
     * A refused upsert whose filter names the document through a unique index fails with a duplicate key:
     * the document exists, and its fence kept it from matching. Any other failure is the driver's.
     */
    RuntimeException refusedOr(MongoException failure, boolean upsert, String lockName, long token, Bson filter,
                                       Collation collation) {
        if (!upsert || !StoreCalls.isDuplicateKey(failure)) {
            return failure;
        }
        Optional<FencedWriteRejectedException> refusal;
        try {
            refusal = refusal(lockName, token, filter, collation);
        } catch (RuntimeException readFailed) {
            readFailed.addSuppressed(failure);
            return readFailed;
        }
        if (refusal.isEmpty()) {
            return failure; // another unique index, or a concurrent insert of a document this token may write
        }
        refusal.get().initCause(failure);
        return refusal.get();
    }

    /** After a write that changed nothing: throws the refusal, if the fence was the reason. */
    void throwIfRefused(String lockName, long token, Bson filter, Collation collation) {
        Optional<FencedWriteRejectedException> refusal = refusal(lockName, token, filter, collation);
        if (refusal.isPresent()) {
            throw refusal.get();
        }
    }

    /**
     * The one extra read of a write that changed nothing: a document matching the caller's filter whose
     * fence the token does not pass. Read on the primary with local read concern, as the refused write was
     * judged: a lagging secondary, or a majority read, could miss a fence raised by a write not yet replicated.
     */
    private Optional<FencedWriteRejectedException> refusal(String lockName, long token, Bson filter, Collation collation) {
        FindIterable<BsonDocument> read = collection.withDocumentClass(BsonDocument.class)
                .withReadPreference(ReadPreference.primary())
                .withReadConcern(ReadConcern.LOCAL)
                .find(Filters.and(filter, Filters.nor(Filters.eq(fenceField, null), Filters.lte(fenceField, token))))
                .projection(Projections.include(fenceField))
                .limit(1);
        BsonDocument seen = (collation == null ? read : read.collation(collation)).first();
        return seen == null ? Optional.empty() : refusalBy(seen, lockName, token);
    }

    /**
     * The fence's rule applied to a document already read (with its {@code _id} and fence field): the refusal a
     * write with {@code token} gets from it, or empty when its fence lets the token pass. {@link VersionedCollection}
     * applies it to the document it read, so that a stale token is refused before any change is computed.
     *
     * @throws LockConfigurationException when the fence field holds something other than a whole number
     */
    Optional<FencedWriteRejectedException> refusalBy(BsonDocument seen, String lockName, long token) {
        BsonValue fence = seen.get(fenceField);
        if (fence == null || fence.isNull()) {
            return Optional.empty();
        }
        String id = new BsonDocument("_id", seen.get("_id")).toJson();
        OptionalLong higher = wholeNumber(fence);
        if (higher.isEmpty()) {
            throw new LockConfigurationException("Document " + id + " in " + namespace() + " has "
                    + new BsonDocument(fenceField, fence).toJson()
                    + ", which is not a fencing token (a whole number), so no fenced write can pass it. Another writer"
                    + " uses that field: give FencedCollection a field of its own with withFenceField(...).");
        }
        return higher.getAsLong() <= token ? Optional.empty()
                : Optional.of(new FencedWriteRejectedException(lockName, token, namespace(), id, fenceField, higher.getAsLong()));
    }

    /** A whole number: what {@code $max} or {@code $inc} writes, or what a shell writes as a double. */
    static OptionalLong wholeNumber(BsonValue value) {
        if (value.isInt32() || value.isInt64()) {
            return OptionalLong.of(value.asNumber().longValue());
        }
        if (value.isDouble()) {
            double number = value.asDouble().getValue();
            return number == Math.rint(number) && Math.abs(number) < 0x1p63 ? OptionalLong.of((long) number) : OptionalLong.empty();
        }
        if (value.isDecimal128()) {
            Decimal128 decimal = value.asDecimal128().getValue();
            if (decimal.isNaN() || decimal.isInfinite()) {
                return OptionalLong.empty();
            }
            try {
                BigDecimal exact = decimal.bigDecimalValue();
                return OptionalLong.of(exact.stripTrailingZeros().longValueExact());
            } catch (ArithmeticException notWhole) {
                return OptionalLong.empty();
            }
        }
        return OptionalLong.empty();
    }

    private String namespace() {
        return collection.getNamespace().getFullName();
    }
}
