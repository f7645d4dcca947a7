package io.github.mongolock.benchmark;

import com.mongodb.event.CommandFailedEvent;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.event.CommandSucceededEvent;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Counts the documents a client's writes changed, as the server answers them ({@code n} of an update, insert or
 * delete reply, {@code lastErrorObject.n} of a findAndModify reply; the library's {@code RenewalCostTest} counts
 * the same way), and what MongoDB's oplog would hold for them ({@link OplogEstimate}, an estimate: the benchmark
 * cannot see a real server's oplog). Also counts the writes that end a lock session (an update setting
 * {@code state: "ended"}). Thread-filtered like {@link CommandCounter}: the sync driver fires these events on
 * the thread that runs the operation.
 */
final class WriteCounter implements CommandListener {

    /** Per request in flight: the estimated oplog bytes per document it writes (-1: not estimated). */
    private final ConcurrentHashMap<Integer, Long> pending = new ConcurrentHashMap<>();
    private final Predicate<Thread> counted;
    private final String namespace;
    private final LongAdder documents = new LongAdder();
    private final LongAdder oplogBytes = new LongAdder();
    private final LongAdder sessionEnds = new LongAdder();

    /** @param namespace {@code database.collection}, for the oplog estimate */
    WriteCounter(Predicate<Thread> counted, String namespace) {
        this.counted = counted;
        this.namespace = namespace;
    }

    @Override
    public void commandStarted(CommandStartedEvent event) {
        if (!counted.test(Thread.currentThread())) {
            return;
        }
        BsonDocument command = event.getCommand();
        switch (event.getCommandName()) {
            case "update" -> {
                BsonValue updates = command.get("updates");
                BsonDocument first = updates instanceof BsonArray array && !array.isEmpty() && array.get(0).isDocument()
                        ? array.get(0).asDocument() : new BsonDocument();
                BsonDocument update = first.get("u") instanceof BsonDocument u ? u : new BsonDocument();
                if (update.get("$set") instanceof BsonDocument set && "ended".equals(stringOf(set.get("state")))) {
                    sessionEnds.increment();
                }
                // Retryable on a replica set with the driver's default retryWrites=true, unless multi-document
                // (the stand-in has no sessions, so the driver sends it no txnNumber to go by).
                boolean multi = first.get("multi") instanceof org.bson.BsonBoolean flag && flag.getValue();
                pending.put(event.getRequestId(), OplogEstimate.updateEntryBytes(namespace, idOf(first.get("q")),
                        update, !multi, false));
            }
            case "findAndModify" -> {
                BsonDocument update = command.get("update") instanceof BsonDocument u ? u : new BsonDocument();
                pending.put(event.getRequestId(), OplogEstimate.updateEntryBytes(namespace, idOf(command.get("query")),
                        update, true, true));
            }
            case "insert", "delete" -> pending.put(event.getRequestId(), -1L);
            default -> {
                // reads and everything else write nothing
            }
        }
    }

    @Override
    public void commandSucceeded(CommandSucceededEvent event) {
        Long perDocument = pending.remove(event.getRequestId());
        if (perDocument == null) {
            return;
        }
        long written = documentsWrittenBy(event.getCommandName(), event.getResponse());
        documents.add(written);
        if (perDocument >= 0) {
            oplogBytes.add(written * perDocument);
        }
    }

    @Override
    public void commandFailed(CommandFailedEvent event) {
        pending.remove(event.getRequestId()); // a failed write wrote nothing (a duplicate key, a timeout's outcome is unknown)
    }

    /** Documents written since the last reset, as the server answered. */
    long documents() {
        return documents.sum();
    }

    /** Estimated bytes of MongoDB oplog entries for the documents written by updates and findAndModify (not inserts, deletes). */
    long estimatedOplogBytes() {
        return oplogBytes.sum();
    }

    /** Updates sent that end a lock session ({@code $set: {state: "ended"}}). */
    long sessionEnds() {
        return sessionEnds.sum();
    }

    void reset() {
        documents.reset();
        oplogBytes.reset();
        sessionEnds.reset();
    }

    /** How many documents the server says a command wrote: an update's {@code n}, a findAndModify's {@code lastErrorObject.n}. */
    static long documentsWrittenBy(String command, BsonDocument response) {
        return switch (command) {
            case "update", "delete", "insert" -> response.containsKey("n") ? response.getNumber("n").longValue() : 0;
            case "findAndModify" -> response.get("lastErrorObject") instanceof BsonDocument last && last.containsKey("n")
                    ? last.getNumber("n").longValue() : 0;
            default -> 0;
        };
    }

    /** The {@code _id} a filter names: its value, or the first of an {@code $in}; null when it names none. */
    private static BsonValue idOf(BsonValue filter) {
        if (!(filter instanceof BsonDocument document)) {
            return null;
        }
        BsonValue id = document.get("_id");
        if (id == null && document.get("$and") instanceof BsonArray terms) {
            for (BsonValue term : terms) {
                BsonValue found = idOf(term);
                if (found != null) {
                    return found;
                }
            }
        }
        if (id instanceof BsonDocument operators && operators.get("$in") instanceof BsonArray in && !in.isEmpty()) {
            return in.get(0);
        }
        if (id instanceof BsonDocument operators && operators.get("$eq") != null) {
            return operators.get("$eq");
        }
        return id;
    }

    private static String stringOf(BsonValue value) {
        return value != null && value.isString() ? value.asString().getValue() : null;
    }
}
