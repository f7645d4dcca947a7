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
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The writes {@link ReplicaSetFaults} applied but whose answers it kept from the client: what each changed,
 * document by document (its pre-image read before the write was forwarded, its post-image after the answer came,
 * both under a {@link WriteGate} freeze, so nothing else wrote in between), until the next election rolls them
 * back. A rollback restores a document's pre-image only where the document is still exactly the post-image: a
 * later write that changed it was answered, so on a replica set it was majority-committed, and with it every write
 * before it in the oplog, this one included; such a write is kept. A write retried by the driver (same session
 * and transaction number) whose retry was answered is acknowledged and kept too. Thread-safe.
 */
final class RollbackLog {

    /** A document a lost write changed: absent before (null) or after (null) where it was inserted or deleted. */
    private record Change(BsonValue id, BsonDocument before, BsonDocument after) {
    }

    /** One lost write, captured. */
    static final class LostWrite {
        private final WireCommand command;
        private final String retryKey;
        private final Map<BsonValue, BsonDocument> before;
        private final List<Change> changes = new ArrayList<>();
        private volatile boolean acknowledged;

        private LostWrite(WireCommand command, Map<BsonValue, BsonDocument> before) {
            this.command = command;
            this.retryKey = retryKey(command);
            this.before = before;
        }

        int documentsChanged() {
            return changes.size();
        }
    }

    /** What an election did to the lost writes: rolled back (at least one document restored), or kept. */
    record Outcome(int rolledBack, int kept) {
    }

    private final MongoClient client;
    private final List<LostWrite> lost = new ArrayList<>();

    RollbackLog(MongoClient client) {
        this.client = client;
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
        return new LostWrite(write, before);
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

    /** A retryable write's retry was answered: that write is acknowledged, never rolled back. */
    void acknowledged(WireCommand write) {
        String key = retryKey(write);
        if (key != null) {
            synchronized (lost) {
                lost.stream().filter(w -> key.equals(w.retryKey)).forEach(w -> w.acknowledged = true);
            }
        }
    }

    /**
     * The election: every lost write not acknowledged, the latest first, restored to its pre-image where its
     * documents are still its post-image; the same in the collections of {@code snapshot}, if any, which must not
     * show a write the new primary never had. Under a freeze. Forgets them all.
     */
    Outcome rollBack(ReplicaSnapshot snapshot) {
        List<LostWrite> writes;
        synchronized (lost) {
            writes = new ArrayList<>(lost);
            lost.clear();
        }
        int rolledBack = 0;
        int kept = 0;
        for (int i = writes.size() - 1; i >= 0; i--) {
            LostWrite write = writes.get(i);
            boolean restored = false;
            for (Change change : write.acknowledged ? List.<Change>of() : write.changes) {
                restored |= restore(collection(write.command), change);
                if (snapshot != null && snapshot.covers(write.command.database(), write.command.collection())) {
                    restore(client.getDatabase(snapshot.database())
                            .getCollection(snapshot.staleName(write.command.collection()), BsonDocument.class), change);
                    snapshot.restored(write.command.collection(), change.id(), change.before(), change.after());
                }
            }
            if (restored) {
                rolledBack++;
            } else {
                kept++;
            }
        }
        return new Outcome(rolledBack, kept);
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

    private static String retryKey(WireCommand write) {
        if (!write.retryable() || !(write.body().get("lsid") instanceof BsonDocument lsid)) {
            return null;
        }
        return lsid.toJson() + "#" + write.body().get("txnNumber");
    }
}
