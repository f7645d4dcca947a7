package io.github.mongolock.mongo;

import io.github.mongolock.LockConfigurationException;
import java.util.List;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.Document;

/**
 * What a {@link VersionedCollection} change function returned, next to the stored document it was given, and
 * the write that turns one into the other. The fields {@code _id}, version and fence are the collection's: the
 * change may leave them out (they keep their stored values) but not move them. Any other top-level field the
 * change left out is removed.
 *
 * @param stored  the document as read (for an insert, only its {@code _id})
 * @param changed what the change returned, encoded
 */
record ChangedDocument(BsonDocument stored, BsonDocument changed, String versionField, String fenceField) {

    /**
     * @throws LockConfigurationException when the change returned {@code null} or moved {@code _id}, the version
     *                                    or the fence
     */
    static ChangedDocument checked(BsonDocument stored, Document result, VersionedCollection target) {
        String document = new BsonDocument("_id", stored.get("_id")).toJson();
        String namespace = target.collection().getNamespace().getFullName();
        if (result == null) {
            throw new LockConfigurationException("The change for document " + document + " in " + namespace
                    + " returned null: return the document to store (the one given, changed, or a new one).");
        }
        ChangedDocument changed = new ChangedDocument(stored, result.toBsonDocument(BsonDocument.class,
                target.collection().getCodecRegistry()),
                target.versionField(), target.fenceField());
        for (String field : List.of("_id", changed.versionField, changed.fenceField)) {
            BsonValue now = changed.changed.get(field);
            if (now != null && !now.equals(stored.get(field))) {
                String was = stored.containsKey(field) ? new BsonDocument(field, stored.get(field)).toJson()
                        : "no \"" + field + "\"";
                throw new LockConfigurationException("The change for document " + document + " in " + namespace
                        + " returned " + new BsonDocument(field, now).toJson() + " where the stored document has " + was
                        + ": " + changed.ownership(field) + " Leave the field as it was read, or leave it out.");
            }
        }
        return changed;
    }

    /** {@code $set} of the top-level fields that changed, {@code $unset} of those left out, {@code $inc} of the version. */
    BsonDocument operators() {
        BsonDocument set = new BsonDocument();
        changed.forEach((name, value) -> {
            if (!owned(name) && !value.equals(stored.get(name))) {
                set.put(name, value);
            }
        });
        BsonDocument unset = new BsonDocument();
        stored.keySet().stream().filter(name -> !owned(name) && !changed.containsKey(name))
                .forEach(name -> unset.put(name, new BsonString("")));
        BsonDocument update = new BsonDocument();
        if (!set.isEmpty()) {
            update.put("$set", set);
        }
        if (!unset.isEmpty()) {
            update.put("$unset", unset);
        }
        return update.append("$inc", new BsonDocument(versionField, new BsonInt64(1)));
    }

    /**
     * Adds to {@code filter} the value each field the write changes had when it was read ({@code $eq}, or
     * {@code $exists: false} for a field the change adds). The version alone names a state on MongoDB, whose
     * reads see whole documents; on a server whose reads can see a write half-applied (the in-process stand-in
     * updates documents in place), a read could pair the new version with an old field, and a change computed
     * from it would then match and lose the other write. With the old values in the filter it matches nothing,
     * and the next attempt reads again.
     */
    BsonDocument withReadValues(BsonDocument filter) {
        changed.forEach((name, value) -> {
            if (!owned(name) && !value.equals(stored.get(name))) {
                filter.put(name, readValue(name));
            }
        });
        stored.keySet().stream().filter(name -> !owned(name) && !changed.containsKey(name))
                .forEach(name -> filter.put(name, readValue(name)));
        return filter;
    }

    private BsonDocument readValue(String name) {
        BsonValue was = stored.get(name);
        return was == null ? new BsonDocument("$exists", BsonBoolean.FALSE) : new BsonDocument("$eq", was);
    }

    /**
     * The document as stored once written: {@code _id}, the change's own fields, {@code version}, and {@code fence}
     * unless {@code null} (no fence).
     */
    BsonDocument written(long version, BsonValue fence) {
        BsonDocument document = new BsonDocument("_id", stored.get("_id"));
        changed.forEach((name, value) -> {
            if (!owned(name)) {
                document.put(name, value);
            }
        });
        document.put(versionField, new BsonInt64(version));
        if (fence != null) {
            document.put(fenceField, fence);
        }
        return document;
    }

    private boolean owned(String field) {
        return field.equals("_id") || field.equals(versionField) || field.equals(fenceField);
    }

    private String ownership(String field) {
        if (field.equals("_id")) {
            return "a document's _id cannot change.";
        }
        return field.equals(versionField)
                ? "the version is VersionedCollection's own ($inc: 1 on every update)."
                : "the fence is written from the token, by the fenced forms of update alone.";
    }
}
