package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.elemMatch;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Updates.addToSet;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.pull;
import static com.mongodb.client.model.Updates.pullAll;
import static com.mongodb.client.model.Updates.push;
import static com.mongodb.client.model.Updates.set;
import static io.github.mongolock.mongo.LockDocument.BEAT;
import static io.github.mongolock.mongo.LockDocument.ID;
import static io.github.mongolock.mongo.LockDocument.LEASE_MS;
import static io.github.mongolock.mongo.LockDocument.LIVE;
import static io.github.mongolock.mongo.LockDocument.OWNER;
import static io.github.mongolock.mongo.LockDocument.QUEUE;
import static io.github.mongolock.mongo.LockDocument.SESSION;
import static io.github.mongolock.mongo.LockDocument.STATE;
import static io.github.mongolock.mongo.LockDocument.TOKEN;
import static io.github.mongolock.mongo.LockDocument.VERSION;
import static io.github.mongolock.mongo.LockDocument.number;
import static io.github.mongolock.mongo.LockDocument.sessionId;
import static io.github.mongolock.mongo.LockDocument.sessionOf;

import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.core.LockArguments;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.PermitAttempt;
import io.github.mongolock.core.PermitHolders;
import io.github.mongolock.core.PermitStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The leased semaphores of {@link MongoLockStore}, in the lock collection under a document {@code _id}, so that no
 * lock name can be one and no lock filter matches one (spec/PERMITS-DESIGN.md):
 *
 * <pre>{@code
 * { _id:     { mongolock: "permits", name: "export" },
 *   limit:   3,                       // set when created; a grant names it, so another limit never matches
 *   used:    2,                       // the sum of holders[].permits, kept exact by every write
 *   holders: [ { owner: "web-1:9c0e...:42", session: "65f1c0a2...", permits: 1 }, ... ],
 *   version: NumberLong(97),          // +1 on every change
 *   token:   NumberLong(42),          // the last fencing token granted
 *   queue:   [ "web-2:..." ] }        // managers waiting, in arrival order
 * }</pre>
 *
 * Every write is one single-document compare-and-set, and a grant needs no {@code $expr}: the room for {@code n}
 * permits is {@code used <= limit - n}. A holder's permits are taken back only after its session was ended by a
 * compare-and-set ({@link SessionDocuments#expire}, {@link SessionDocuments#endUnlessLive}), by a pull pinned to the
 * version its permits were counted in. The documents are never removed, so tokens never go back. Thread-safe.
 */
class PermitDocuments implements PermitStore {

    static final String KIND = "permits";
    /** The {@code _id.mongolock} of this store's documents: {@value #KIND}, or a read-write lock's. */
    private final String kind;
    static final String LIMIT = "limit";
    static final String USED = "used";
    static final String HOLDERS = "holders";
    static final String PERMITS = "permits";
    /** Moved by a queue head that waits for more permits than are free ({@link #stillWaiting}). */
    static final String TURN = "turn";
    /** The pull of an ended session's permits is retried when the semaphore changed between its read and its write. */
    private static final int RECLAIM_TRIES = 5;
    /**
     * The grant answers the image from before its change, as the lock's grants do: the token and version it wrote are
     * one more than those, and an insert (no image) wrote 1. (The stand-in answers an after-image read after the
     * write, not with it: two grants could be told the same token.)
     */
    static final FindOneAndUpdateOptions GRANT =
            new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.BEFORE);

    final MongoCollection<Document> locks;
    /** The session check's reads: local read concern on the primary, as {@link SessionDocuments}' check. */
    private final MongoCollection<Document> checkReads;
    final StoreCalls calls;
    private final SessionDocuments sessions;

    PermitDocuments(MongoCollection<Document> locks, StoreCalls calls, SessionDocuments sessions) {
        this(locks, calls, sessions, KIND);
    }

    /** @param kind the documents' {@code _id.mongolock}: one namespace of names per kind */
    PermitDocuments(MongoCollection<Document> locks, StoreCalls calls, SessionDocuments sessions, String kind) {
        this.kind = kind;
        this.locks = locks;
        this.checkReads = locks.withReadPreference(ReadPreference.primary()).withReadConcern(ReadConcern.LOCAL);
        this.calls = calls;
        this.sessions = sessions;
    }

    /** A semaphore document's {@code _id}. */
    static Document permitsId(String name) {
        return new Document("mongolock", KIND).append("name", name);
    }

    /** This store's document {@code _id} for {@code name}. */
    final Document idOf(String name) {
        return new Document("mongolock", kind).append("name", name);
    }

    /**
     * Who may be granted {@code permits} of {@code limit} besides the room: a semaphore's queue rule (nobody queued, or
     * this manager first), as for locks. A read-write lock's readers wait behind any queued writer.
     */
    Document queueRule(int limit, int permits, String manager) {
        return new Document("$or", List.of(new Document(LockDocument.QUEUE_HEAD, new Document("$exists", false)),
                new Document(LockDocument.QUEUE_HEAD, manager)));
    }

    @Override
    public PermitAttempt tryAcquire(String name, int limit, int permits, String owner, String session) {
        String manager = LockStore.managerOf(owner);
        // Flat filter (the upsert takes _id and limit from its top-level equalities); the queue rule as for locks.
        Document filter = new Document(ID, idOf(name)).append(LIMIT, limit)
                .append(USED, new Document("$lte", limit - permits));
        filter.putAll(queueRule(limit, permits, manager));
        Document entry = new Document(OWNER, owner).append(SESSION, session).append(PERMITS, permits);
        try {
            Document before = calls.call("acquire permits of", name, () -> locks.findOneAndUpdate(filter,
                    combine(push(HOLDERS, entry), inc(USED, permits), inc(VERSION, 1L), inc(TOKEN, 1L), pull(QUEUE, manager),
                            currentDate(LockDocument.ACQUIRED_AT)), GRANT));
            return before == null ? new PermitAttempt.Granted(1, 1)
                    : new PermitAttempt.Granted(number(before, TOKEN) + 1, number(before, VERSION) + 1);
        } catch (LockStoreException failure) {
            if (!StoreCalls.isDuplicateKey(failure.getCause())) {
                throw failure;
            }
        }
        // The semaphore exists and the grant did not match: full, queued for another manager, or another limit.
        PermitHolders seen = read(name, true)
                .orElseThrow(() -> new IllegalStateException("the semaphore was there and is gone: it is never removed"));
        if (seen.limit() != limit) {
            throw limitMismatch(name, seen.limit(), limit);
        }
        return new PermitAttempt.Busy(Optional.of(seen));
    }

    @Override
    public PermitAttempt reclaim(String name, int limit, int permits, String owner, String session, PermitHolders.Seen stale) {
        String manager = LockStore.managerOf(owner);
        // Never on a read alone: a replica set may answer a read from before the session's insert (SERVER-53813).
        boolean ended = !stale.ended() && sessions.expire(stale.session(), stale.beat(), manager)
                || sessions.endUnlessLive(stale.session(), manager);
        if (!ended) {
            return PermitAttempt.Busy.unknown(); // renewed since: watch again
        }
        pullSession(name, stale.session());
        return tryAcquire(name, limit, permits, owner, session);
    }

    /** Takes back every permit held under the ended {@code session}, counted in the version it is pulled from. */
    private void pullSession(String name, String session) {
        for (int tries = 0; tries < RECLAIM_TRIES; tries++) {
            Optional<PermitHolders> seen = read(name, false);
            int permits = seen.map(holders -> holders.holds().stream().filter(hold -> hold.session().equals(session))
                    .mapToInt(PermitHolders.Hold::permits).sum()).orElse(0);
            if (permits == 0) {
                return;
            }
            long version = seen.get().version();
            // The holders as read, less the ended session's: exact, since the write is pinned to the version read.
            List<Document> kept = seen.get().holds().stream().filter(hold -> !hold.session().equals(session))
                    .map(hold -> new Document(OWNER, hold.owner()).append(SESSION, hold.session()).append(PERMITS, hold.permits()))
                    .toList();
            // The managers whose session ended are out of the queue too: a dead manager left at its head would hold the
            // permits just taken back from it for a turn grace more (the torture's PERMITS_KILL: 2,558 ms > 2,300).
            // One that was only paused queues again at its next look: fairness alone.
            List<String> gone = seen.get().holds().stream().filter(hold -> hold.session().equals(session))
                    .map(hold -> LockStore.managerOf(hold.owner())).distinct().toList();
            boolean pulled = calls.call("take back the permits of", name, () -> locks.updateOne(
                    and(eq(ID, idOf(name)), eq(VERSION, version)),
                    combine(set(HOLDERS, kept), inc(USED, -permits), inc(VERSION, 1L), pullAll(QUEUE, gone),
                            currentDate(LockDocument.RELEASED_AT))))
                    .getModifiedCount() == 1;
            if (pulled) {
                return;
            }
        }
        // Busy semaphore: the next waiter's reclaim pulls them (the session stays ended).
    }

    @Override
    public boolean release(String name, String owner, int permits) {
        return calls.call("release permits of", name, () -> locks.updateOne(
                and(eq(ID, idOf(name)), elemMatch(HOLDERS, new Document(OWNER, owner).append(PERMITS, permits))),
                combine(pull(HOLDERS, new Document(OWNER, owner)), inc(USED, -permits), inc(VERSION, 1L),
                        currentDate(LockDocument.RELEASED_AT)))).getModifiedCount() == 1;
    }

    @Override
    public List<HeldUnder> heldUnder(String session) {
        List<HeldUnder> held = new ArrayList<>();
        calls.call("check the permits of", StoreCalls.SESSION_SUBJECT + session, () -> checkReads.find(
                        and(eq(ID + ".mongolock", kind), eq(HOLDERS + "." + SESSION, session)))
                .projection(new Document(HOLDERS, 1)).into(new ArrayList<>()))
                .forEach(document -> {
                    if (document.get(ID) instanceof Document id && id.get("name") instanceof String name) {
                        holds(document).stream().filter(hold -> hold.session().equals(session))
                                .forEach(hold -> held.add(new HeldUnder(name, hold.owner(), hold.permits())));
                    }
                });
        return held;
    }

    @Override
    public Optional<PermitHolders> inspect(String name) {
        return read(name, true);
    }

    @Override
    public void joinQueue(String name, String manager) {
        calls.call("queue for permits of", name, () -> locks.updateOne(eq(ID, idOf(name)), addToSet(QUEUE, manager)));
    }

    @Override
    public void leaveQueue(String name, String manager) {
        calls.call("leave the queue of permits of", name, () -> locks.updateOne(
                and(eq(ID, idOf(name)), eq(QUEUE, manager)),
                combine(pull(QUEUE, manager), currentDate(LockDocument.RELEASED_AT))));
    }

    @Override
    public void stillWaiting(String name, String manager) {
        calls.call("keep the turn for permits of", name, () -> locks.updateOne(
                and(eq(ID, idOf(name)), eq(LockDocument.QUEUE_HEAD, manager)), inc(TURN, 1L)));
    }

    @Override
    public boolean dropStaleHead(String name, String head, long turn) {
        Bson sameTurn = turn == 0 ? in(TURN, Arrays.asList(0L, null)) : eq(TURN, turn);
        return calls.call("take a gone manager out of the queue of permits of", name, () -> locks.updateOne(
                and(eq(ID, idOf(name)), eq(LockDocument.QUEUE_HEAD, head), sameTurn),
                combine(pull(QUEUE, head), currentDate(LockDocument.RELEASED_AT)))).getModifiedCount() == 1;
    }

    /** The semaphore as stored, with its holding sessions read too when {@code withSessions}. */
    private Optional<PermitHolders> read(String name, boolean withSessions) {
        Document found = calls.call("inspect permits of", name, () -> locks.find(eq(ID, idOf(name))).first());
        if (found == null) {
            return Optional.empty();
        }
        List<PermitHolders.Hold> holds = holds(found);
        List<PermitHolders.Seen> seen = withSessions ? sessionsOf(name, holds) : List.of();
        List<String> queue = LockDocument.queue(found).stream().map(String::valueOf).toList();
        return Optional.of(new PermitHolders(name, (int) number(found, LIMIT), (int) number(found, USED), holds,
                number(found, VERSION), number(found, TOKEN), queue,
                found.get(TURN) instanceof Number turn ? turn.longValue() : 0, seen));
    }

    /** Each holding session as read now; one read for all of them. A session not found reads as ended. */
    private List<PermitHolders.Seen> sessionsOf(String name, List<PermitHolders.Hold> holds) {
        Set<String> ids = new LinkedHashSet<>();
        holds.forEach(hold -> ids.add(hold.session()));
        if (ids.isEmpty()) {
            return List.of();
        }
        Map<String, Document> found = new HashMap<>();
        calls.call("inspect the sessions of", name, () -> locks.find(in(ID, ids.stream().map(LockDocument::sessionId).toList()))
                .into(new ArrayList<>())).forEach(document -> found.put(sessionOf(document.get(ID)), document));
        List<PermitHolders.Seen> seen = new ArrayList<>();
        for (String id : ids) {
            Document session = found.get(id);
            boolean live = session != null && LIVE.equals(session.get(STATE));
            seen.add(new PermitHolders.Seen(id, live ? session.get(BEAT) : -1L,
                    Duration.ofMillis(live ? Math.max(number(session, LEASE_MS), 1) : 1), !live));
        }
        return seen;
    }

    private static List<PermitHolders.Hold> holds(Document document) {
        List<PermitHolders.Hold> holds = new ArrayList<>();
        if (document.get(HOLDERS) instanceof List<?> entries) {
            for (Object entry : entries) {
                if (entry instanceof Document hold && hold.get(OWNER) instanceof String owner
                        && hold.get(SESSION) instanceof String session) {
                    holds.add(new PermitHolders.Hold(owner, session, (int) number(hold, PERMITS)));
                }
            }
        }
        return holds;
    }

    private static LockConfigurationException limitMismatch(String name, int stored, int asked) {
        return new LockConfigurationException("the semaphore " + LockArguments.quote(name) + " has " + stored
                + " permits, but was asked for with a limit of " + asked + ": a semaphore's limit is part of its name's"
                + " contract. Use the same limit everywhere, or another name; nothing was written");
    }
}
