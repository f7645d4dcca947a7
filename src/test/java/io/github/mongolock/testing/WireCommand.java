package io.github.mongolock.testing;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * A command a client sent through {@link ReplicaSetFaults}, as the fault rules' predicates see it: its
 * database ({@code $db}), name (the body's first key), collection (that key's value, "" when it is not a
 * string) and body, the document sequences of an {@code OP_MSG} (an insert's {@code documents}, an update's
 * {@code updates}, a delete's {@code deletes}) merged in as arrays. Read-only by convention: a predicate must
 * not change the body.
 *
 * @param connection the proxy's number for the client connection it came on
 */
public record WireCommand(int connection, String database, String name, String collection, BsonDocument body) {

    private static final Set<String> READS = Set.of("find", "aggregate", "count", "distinct");
    private static final Set<String> WRITES = Set.of("insert", "update", "delete", "findAndModify");

    static WireCommand of(int connection, WireMessage message) {
        BsonDocument body = message.body();
        for (Map.Entry<String, List<BsonDocument>> sequence : message.sequences().entrySet()) {
            body.put(sequence.getKey(), new BsonArray(sequence.getValue()));
        }
        String name = body.isEmpty() ? "" : body.getFirstKey();
        BsonValue target = body.get(name);
        return new WireCommand(connection, body.getString("$db", new BsonString("")).getValue(), name,
                target != null && target.isString() ? target.asString().getValue() : "", body);
    }

    /**
     * A read of documents of a collection: {@code find}, {@code count}, {@code distinct}, or an {@code aggregate}
     * that is not a change stream (a change stream reads the oplog, not the documents).
     */
    public boolean isRead() {
        if (!READS.contains(name) || collection.isEmpty()) {
            return false;
        }
        if (name.equals("aggregate") && body.get("pipeline") instanceof BsonArray pipeline) {
            return pipeline.stream().noneMatch(stage -> stage.isDocument()
                    && (stage.asDocument().containsKey("$changeStream") || stage.asDocument().containsKey("$out")
                    || stage.asDocument().containsKey("$merge")));
        }
        return true;
    }

    /** {@code insert}, {@code update}, {@code delete} or {@code findAndModify}. */
    public boolean isWrite() {
        return WRITES.contains(name);
    }

    /** Whether the command names {@code collection} of {@code database}. */
    public boolean on(String database, String collection) {
        return this.database.equals(database) && this.collection.equals(collection);
    }

    /** The read concern level asked for, "" when none (the server's default: local on a primary). */
    public String readConcern() {
        return body.get("readConcern") instanceof BsonDocument concern && concern.get("level") != null
                && concern.get("level").isString() ? concern.getString("level").getValue() : "";
    }

    /** A causally consistent read: a server waits until its snapshot reaches {@code afterClusterTime}, stale or not. */
    public boolean causal() {
        return body.get("readConcern") instanceof BsonDocument concern && concern.containsKey("afterClusterTime");
    }

    /** A retryable write: it carries a transaction number, by which a server recognises a retry and applies it once. */
    public boolean retryable() {
        return body.containsKey("txnNumber");
    }

    /** A multi-document update or delete, which a driver never retries and a server never recognises as a retry. */
    public boolean multi() {
        return statements("updates").stream().anyMatch(update -> update.getBoolean("multi", BsonBoolean.FALSE).getValue())
                || statements("deletes").stream().anyMatch(delete -> delete.get("limit") != null
                && delete.get("limit").isNumber() && delete.get("limit").asNumber().intValue() == 0);
    }

    /**
     * The filter the command selects documents with: a find's {@code filter}, the first {@code $match} of an
     * aggregate, a count's or distinct's {@code query}, a findAndModify's {@code query}, the first statement's
     * {@code q} of an update or delete; null when it has none.
     */
    public BsonDocument filter() {
        BsonValue filter = switch (name) {
            case "find" -> body.get("filter");
            case "count", "distinct", "findAndModify" -> body.get("query");
            case "aggregate" -> body.get("pipeline") instanceof BsonArray pipeline && !pipeline.isEmpty()
                    && pipeline.get(0).isDocument() ? pipeline.get(0).asDocument().get("$match") : null;
            case "update" -> statements("updates").isEmpty() ? null : statements("updates").get(0).get("q");
            case "delete" -> statements("deletes").isEmpty() ? null : statements("deletes").get(0).get("q");
            default -> null;
        };
        return filter != null && filter.isDocument() ? filter.asDocument() : null;
    }

    /** The {@code _id} the filter names by equality ({@code {_id: v}} or {@code {_id: {$eq: v}}}), or null. */
    public BsonValue targetId() {
        BsonDocument filter = filter();
        BsonValue id = filter == null ? null : filter.get("_id");
        if (id == null || !id.isDocument() || id.asDocument().isEmpty() || !id.asDocument().getFirstKey().startsWith("$")) {
            return id;
        }
        return id.asDocument().size() == 1 ? id.asDocument().get("$eq") : null;
    }

    /** The statements of an update ({@code "updates"}) or a delete ({@code "deletes"}); empty for other commands. */
    List<BsonDocument> statements(String key) {
        return body.get(key) instanceof BsonArray array
                ? array.stream().filter(BsonValue::isDocument).map(BsonValue::asDocument).toList() : List.of();
    }

    @Override
    public String toString() {
        return name + " " + database + "." + collection + (filter() == null ? "" : " " + filter().toJson());
    }
}
