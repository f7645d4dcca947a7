package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.eq;
import static io.github.mongolock.mongo.LockDocument.HOLDS;
import static io.github.mongolock.mongo.LockDocument.ID;
import static io.github.mongolock.mongo.LockDocument.LEASE_MS;
import static io.github.mongolock.mongo.LockDocument.OWNER;
import static io.github.mongolock.mongo.LockDocument.RENEWED_AT;
import static io.github.mongolock.mongo.LockDocument.SERVER_NOW;
import static io.github.mongolock.mongo.LockDocument.TOKEN;
import static io.github.mongolock.mongo.LockDocument.number;
import static io.github.mongolock.mongo.LockDocument.serverNow;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Field;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockStoreException;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import org.bson.Document;

/**
 * The reads of one lock document of {@link MongoLockStore}, with the database's clock beside it: what a waiter's
 * busy answer is built from, and the {@link LockInfo} people see. Thread-safe.
 */
final class LockReads {

    private final MongoCollection<Document> locks;
    private final StoreCalls calls;
    private final SessionDocuments sessions;

    LockReads(MongoCollection<Document> locks, StoreCalls calls, SessionDocuments sessions) {
        this.locks = locks;
        this.calls = calls;
        this.sessions = sessions;
    }

    /**
     * The lock's document with the database's current time as {@value LockDocument#SERVER_NOW}, in one read; where
     * the server refuses {@code $$NOW} in an aggregation (FerretDB 1.x), the plain document: the fast
     * path is then skipped, nothing else changes. Null when there is no document.
     */
    Document read(String name) {
        if (!calls.server("inspect", name).oneClock()) {
            return calls.call("inspect", name, () -> locks.find(eq(ID, name)).first());
        }
        try {
            return calls.call("inspect", name, () -> locks.aggregate(List.of(
                    Aggregates.match(eq(ID, name)),
                    Aggregates.addFields(new Field<>(SERVER_NOW, "$$NOW")))).first());
        } catch (LockStoreException failure) {
            if (!(failure.getCause() instanceof MongoCommandException)) {
                throw failure;
            }
            return calls.call("inspect", name, () -> locks.find(eq(ID, name)).first());
        }
    }

    /** The lock as stored now, judged by the database's clock: empty when free, or held under an ended session or an expired lease. */
    Optional<LockInfo> inspect(String name) {
        Document document = read(name);
        if (document != null && HeldBySession.isHeldBySession(document)) {
            Document session = sessions.read(document.getString(LockDocument.SESSION), name, serverNow(document));
            if (session == null || !LockDocument.LIVE.equals(session.get(LockDocument.STATE))) {
                return Optional.empty(); // for people: its session ended; the next waiter takes it
            }
            // For people: the session's lease and last renewal are the lock's.
            document = new Document(document).append(RENEWED_AT, session.get(RENEWED_AT)).append(LEASE_MS, session.get(LEASE_MS));
        }
        if (document == null || number(document, HOLDS) == 0 || !(document.get(RENEWED_AT) instanceof Date renewedAt)) {
            return Optional.empty();
        }
        Instant expiresAt = renewedAt.toInstant().plusMillis(number(document, LEASE_MS));
        Date serverNow = serverNow(document);
        if (serverNow != null && !expiresAt.isAfter(serverNow.toInstant())) {
            return Optional.empty(); // for people: its holder stopped renewing; the next waiter takes it over
        }
        return Optional.of(new LockInfo(name, document.getString(OWNER), (int) number(document, HOLDS),
                number(document, TOKEN), expiresAt));
    }
}
