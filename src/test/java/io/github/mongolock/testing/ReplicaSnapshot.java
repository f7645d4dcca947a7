package io.github.mongolock.testing;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Collections of one database as they were at one moment ({@link ReplicaSetFaults#snapshot}), copied to
 * collections of their own ({@code <name>__stale_<n>}) that a stale window of {@link ReplicaSetFaults} reads
 * instead: the data a newly elected primary may still answer majority reads from. The copy is also kept here, so
 * a test can ask what a stale read would see. Thread-safe.
 */
public final class ReplicaSnapshot {

    private final int number;
    private final String database;
    private final long takenAtNanos;
    private final Map<String, Map<BsonValue, BsonDocument>> documents = new LinkedHashMap<>();

    ReplicaSnapshot(int number, String database, long takenAtNanos, Map<String, List<BsonDocument>> copies) {
        this.number = number;
        this.database = database;
        this.takenAtNanos = takenAtNanos;
        copies.forEach((collection, copy) -> {
            Map<BsonValue, BsonDocument> byId = new LinkedHashMap<>();
            copy.forEach(document -> byId.put(document.get("_id"), document));
            documents.put(collection, byId);
        });
    }

    public String database() {
        return database;
    }

    /** When it was taken ({@link System#nanoTime()}), every write before it applied, none after. */
    public long takenAtNanos() {
        return takenAtNanos;
    }

    /** Whether it holds a copy of {@code collection} of {@code database}. */
    public boolean covers(String database, String collection) {
        return this.database.equals(database) && documents.containsKey(collection);
    }

    /** The collection its copy of {@code collection} is in. */
    public String staleName(String collection) {
        return collection + "__stale_" + number;
    }

    /** The document with {@code id} in its copy of {@code collection}, empty where it had none. */
    public synchronized Optional<BsonDocument> document(String collection, BsonValue id) {
        Map<BsonValue, BsonDocument> copy = documents.get(collection);
        return copy == null ? Optional.empty() : Optional.ofNullable(copy.get(id));
    }

    /** Whether its copy of {@code collection} has a document with {@code id}. */
    public boolean contains(String collection, BsonValue id) {
        return document(collection, id).isPresent();
    }

    /** An election rolled a write back in the copy as well: {@code id} is its pre-image again, where it was the post-image. */
    synchronized void restored(String collection, BsonValue id, BsonDocument before, BsonDocument after) {
        Map<BsonValue, BsonDocument> copy = documents.get(collection);
        if (copy != null && Objects.equals(copy.get(id), after)) {
            if (before == null) {
                copy.remove(id);
            } else {
                copy.put(id, before);
            }
        }
    }

    @Override
    public String toString() {
        return "snapshot " + number + " of " + database + " " + documents.keySet();
    }
}
