package io.github.mongolock.testing;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.ReplaceOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The writes {@link ReplicaSetFaults} applied but whose answers it kept from the client: what each changed,
 * document by document (its pre-image read before the write was forwarded, its post-image after the answer came,
 * both under a {@link WriteGate} freeze, so nothing else wrote in between), until the next election.
 *
 * <p>Which of them an election rolls back follows a replica set's oplog: every write through the layer takes a
 * place in one order when it is forwarded (a lost write's place is exact: it is forwarded alone), and a write whose
 * answer reached its client counts as majority-committed (majority is the default write concern since MongoDB 5.0,
 * and the lock store asks for it), and with it every write before it in that order. So an election rolls back the
 * lost writes after the last answered one, the latest first, restoring each document's pre-image (where it is
 * still the post-image), and keeps the others: a lost write any later write's answer covers was replicated. A
 * driver's retry of a lost retryable write, answered, covers it the same way. A rollback also undoes the server's
 * record of a retryable write (its session's transaction table), so the driver's retry of a rolled-back write runs
 * again: {@link #retryOfRolledBack} tells the layer to send it without its transaction number, as a plain write,
 * which a server applies (the stand-in ignores transaction numbers; a replica set would answer the retry from its
 * record without applying it). Thread-safe.
 */
final class RollbackLog {

    /** A document a lost write changed: absent before (null) or after (null) where it was inserted or deleted. */
    private record Change(BsonValue id, BsonDocument before, BsonDocument after) {
    }

    /** One lost write, captured, at its place in the order of writes. */
    static final class LostWrite {
        private final WireCommand command;
        private final long place;
        private final Map<BsonValue, BsonDocument> before;
        private final List<Change> changes = new ArrayList<>();

        private LostWrite(WireCommand command, long place, Map<BsonValue, BsonDocument> before) {
            this.command = command;
            this.place = place;
            this.before = before;
        }

        int documentsChanged() {
            return changes.size();
        }
    }

    /**
     * What an election did to the lost writes: rolled back (at least one document restored), kept (a later answered
     * write covered it, or changed its documents since), or nothing to undo (it changed no document: a
     * compare-and-set that matched nothing).
     */
    record Outcome(int rolledBack, int kept, int unchanged) {
    }

    private final MongoClient client;
    private final List<LostWrite> lost = new ArrayList<>();
    /** Session and transaction number of the retryable writes rolled back, whose retry must run again. */
    private final Set<String> rolledBackRetries = ConcurrentHashMap.newKeySet();
    private final AtomicLong places = new AtomicLong();
    /** The place of the latest write whose answer reached its client. */
    private final AtomicLong answeredUpTo = new AtomicLong();

    RollbackLog(MongoClient client) {
        this.client = client;
    }

    /** The place of a write about to be forwarded (after {@link WriteGate#enter}, so none is taken while frozen). */
    long place() {
        return places.incrementAndGet();
    }

    /** The write at {@code place} was answered to its client: it, and every write before it, is majority-committed. */
    void answered(long place) {
        answeredUpTo.accumulateAndGet(place, Math::max);
    }

    /** Reads the pre-images of every document {@code write} may change; under a freeze, before it is forwarded. */
    LostWrite before(WireCommand write) {
        Map<BsonValue, BsonDocument> before = new LinkedHashMap<>();
        MongoCollection<BsonDocument> collection = collection(write);
        if (write.name().equals("insert")) {
            for (BsonDocument inserted : write.statements("documents")) {
                before.put(inserted.get("_id"), collection.find(eq("_id", inserted.get("_id"))).first());
            }
        }
        for (BsonDocument filter : filters(write)) {
            for (BsonDocument document : collection.find(filter).limit(10_000)) {
                before.put(document.get("_id"), document);
            }
        }
        return new LostWrite(write, place(), before);
    }

    /**
     * Reads the post-images of {@code write} once its answer came ({@code reply}, null when the connection closed
     * first, the outcome unknown) and keeps what it changed until the next election; under the same freeze.
     */
    void after(LostWrite write, BsonDocument reply) {
        Map<BsonValue, BsonDocument> before = new LinkedHashMap<>(write.before);
        for (BsonValue upserted : upsertedIds(reply)) {
            before.putIfAbsent(upserted, null);
        }
        MongoCollection<BsonDocument> collection = collection(write.command);
        for (Map.Entry<BsonValue, BsonDocument> document : before.entrySet()) {
            BsonDocument after = collection.find(eq("_id", document.getKey())).first();
            if (!Objects.equals(after, document.getValue())) {
                write.changes.add(new Change(document.getKey(), document.getValue(), after));
            }
        }
        synchronized (lost) {
            lost.add(write);
        }
    }

    /**
     * The election: every lost write after the last answered one, the latest first, restored to its pre-image where
     * its documents are still its post-image; the same in the collections of {@code snapshot}, if any, which must not
     * show a write the new primary never had. Under a freeze. Forgets them all.
     */
    Outcome rollBack(ReplicaSnapshot snapshot) {
        List<LostWrite> writes;
        synchronized (lost) {
            writes = new ArrayList<>(lost);
            lost.clear();
        }
        long committed = answeredUpTo.get();
        int rolledBack = 0;
        int kept = 0;
        int unchanged = 0;
        for (int i = writes.size() - 1; i >= 0; i--) {
            LostWrite write = writes.get(i);
            if (write.changes.isEmpty()) {
                unchanged++;
                continue;
            }
            boolean restored = false;
            for (Change change : write.place > committed ? write.changes : List.<Change>of()) {
                restored |= restore(collection(write.command), change);
                if (snapshot != null && snapshot.covers(write.command.database(), write.command.collection())) {
                    restore(client.getDatabase(snapshot.database())
                            .getCollection(snapshot.staleName(write.command.collection()), BsonDocument.class), change);
                    snapshot.restored(write.command.collection(), change.id(), change.before(), change.after());
                }
            }
            if (restored) {
                rolledBack++;
                String key = retryKey(write.command);
                if (key != null) {
                    rolledBackRetries.add(key);
                }
            } else {
                kept++;
            }
        }
        return new Outcome(rolledBack, kept, unchanged);
    }

    /** Whether {@code write} is the driver's retry of a retryable write an election rolled back (asked once per retry). */
    boolean retryOfRolledBack(WireCommand write) {
        String key = retryKey(write);
        return key != null && rolledBackRetries.remove(key);
    }

    private static String retryKey(WireCommand write) {
        return write.retryable() && write.body().get("lsid") instanceof BsonDocument lsid
                ? lsid.toJson() + "#" + write.body().get("txnNumber") : null;
    }

    private static boolean restore(MongoCollection<BsonDocument> collection, Change change) {
        BsonDocument now = collection.find(eq("_id", change.id())).first();
        if (!Objects.equals(now, change.after())) {
            return false;
        }
        if (change.before() == null) {
            collection.deleteOne(eq("_id", change.id()));
        } else {
            collection.replaceOne(eq("_id", change.id()), change.before(), new ReplaceOptions().upsert(true));
        }
        return true;
    }

    private MongoCollection<BsonDocument> collection(WireCommand write) {
        return client.getDatabase(write.database()).getCollection(write.collection(), BsonDocument.class);
    }

    private static List<BsonDocument> filters(WireCommand write) {
        List<BsonDocument> filters = new ArrayList<>();
        for (String statements : List.of("updates", "deletes")) {
            for (BsonDocument statement : write.statements(statements)) {
                if (statement.get("q") instanceof BsonDocument q) {
                    filters.add(q);
                }
            }
        }
        if (write.name().equals("findAndModify") && write.body().get("query") instanceof BsonDocument query) {
            filters.add(query);
        }
        return filters;
    }

    /** The ids an update or findAndModify inserted, as its answer reports them. */
    private static List<BsonValue> upsertedIds(BsonDocument reply) {
        List<BsonValue> ids = new ArrayList<>();
        if (reply == null) {
            return ids;
        }
        if (reply.get("upserted") instanceof BsonArray upserted) {
            upserted.stream().filter(BsonValue::isDocument).map(u -> u.asDocument().get("_id")).filter(Objects::nonNull)
                    .forEach(ids::add);
        }
        if (reply.get("lastErrorObject") instanceof BsonDocument last && last.get("upserted") != null) {
            ids.add(last.get("upserted"));
        }
        return ids;
    }

}
