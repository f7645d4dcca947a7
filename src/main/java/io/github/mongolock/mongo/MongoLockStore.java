package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.addToSet;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.pullAll;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.unset;
import static io.github.mongolock.mongo.LockDocument.BEAT;
import static io.github.mongolock.mongo.LockDocument.HOLDS;
import static io.github.mongolock.mongo.LockDocument.ID;
import static io.github.mongolock.mongo.LockDocument.KEPT;
import static io.github.mongolock.mongo.LockDocument.LEASE_ID;
import static io.github.mongolock.mongo.LockDocument.LEASE_MS;
import static io.github.mongolock.mongo.LockDocument.OWNER;
import static io.github.mongolock.mongo.LockDocument.QUEUE;
import static io.github.mongolock.mongo.LockDocument.RELEASED_AT;
import static io.github.mongolock.mongo.LockDocument.RENEWED_AT;
import static io.github.mongolock.mongo.LockDocument.SERVER_NOW;
import static io.github.mongolock.mongo.LockDocument.TOKEN;
import static io.github.mongolock.mongo.LockDocument.VERSION;
import static io.github.mongolock.mongo.LockDocument.number;
import static io.github.mongolock.mongo.LockDocument.queue;
import static io.github.mongolock.mongo.LockDocument.serverNow;
import static io.github.mongolock.mongo.LockWrites.freeForManager;
import static io.github.mongolock.mongo.LockWrites.granted;
import static io.github.mongolock.mongo.LockWrites.newLeaseId;
import static io.github.mongolock.mongo.LockWrites.ownedAt;
import static io.github.mongolock.mongo.LockWrites.take;
import static io.github.mongolock.mongo.LockWrites.wholeMillisUp;

import com.mongodb.MongoCommandException;
import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Field;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.LeaseClaim;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.SessionCheck;
import io.github.mongolock.core.SessionRenewal;
import io.github.mongolock.core.Sighting;
import io.github.mongolock.mongo.LockWrites.ManagerTerms;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.bson.conversions.Bson;

/**
 * The lock protocol on a MongoDB collection: one document per lock name.
 *
 * <pre>{@code
 * {
 *   _id:        "invoice-run",          // the lock name, only ever used as a string value
 *   owner:      "web-1-4711-3f2a:9c0e51d27a4b4e0f8d3c2b1a0f9e8d7c:42" | null,   // <instance-id>:<manager nonce>:<acquisition number>; null when free
 *   holds:      1,                      // the owner's hold count; 0 when free
 *   version:    NumberLong(17),         // +1 on every acquisition, takeover, re-entry, release and resync (the compare-and-set key)
 *   token:      NumberLong(6),          // fencing token: +1 on every fresh acquisition, never lower for a name (see below)
 *   beat:       NumberLong(1203),       // +1 on every renewal: what waiters watch
 *   leaseId:    "b6740c1f2a9e8b3d1c0f4e2a7", // unique per fresh acquisition; renewals match on it ("b": renews beat)
 *   leaseMs:    NumberLong(30000),      // the holder's lease length
 *   acquiredAt: ISODate(...),           // database clock, at the fresh acquisition (for people)
 *   renewedAt:  ISODate(...),           // database clock, at the last acquisition, re-entry or renewal (for people, and the fast path)
 *   queue:      ["web-2-4711-3f2a:9c0e51d27a4b4e0f8d3c2b1a0f9e8d7c"], // managers waiting for it, in arrival order (absent or [] when none)
 *   releasedAt: ISODate(...),           // database clock, when a holder released it with a minimum hold left (see below)
 *   freedAt:    ISODate(...),           // database clock, when it was last left free (only while free; for the idle clean-up)
 *   revokedOwner: "web-1-4711-3f2a:9c0e...:42", // the last release by an operator (LockAdmin): the acquisition it ended,
 *   revokedBy:  "alice@ops-host",       //   who, when (database clock) and why; for people, and for the renewal's
 *   revokedAt:  ISODate(...),           //   check read, which tells that holder the reason. Never part of a filter
 *   revokedReason: "wedged since 02:10" //   and left in place by later grants.
 * }
 *
 * { _id: { mongolock: "collection" },   // the one document that is no lock (its _id is no string)
 *   tokenFloor:   NumberLong(41),       // the highest token of any lock document removed as idle
 *   cleanUpDueAt: ISODate(...),         // when the next idle clean-up is due, and who ran the last one
 *   cleanUpBy:    "web-1-4711-3f2a:9c0e51d27a4b4e0f8d3c2b1a0f9e8d7c" }
 * }</pre>
 *
 * <p><b>Idle documents.</b> {@link IdleLockCleaner} removes lock documents left free for a day (by default),
 * after raising {@code tokenFloor} to their highest token; a lock document the acquire creates takes a token
 * above the floor ({@code TokenFloor}), so a name's tokens never go back.
 *
 * <p><b>Fairness</b> (docs/fairness.md): a free lock whose queue is not empty is taken only by the
 * manager at the queue's head; every grant pulls the grantee's manager from the queue. The queue is
 * written with {@code $addToSet} and {@code $pullAll} only and never moves {@code version} or
 * {@code beat}. {@link #handOver} gives the lock from one acquisition to the next of the same manager
 * in one compare-and-set on {@code {_id, owner, version}}.
 *
 * <p><b>Minimum hold.</b> A release before the acquisition's minimum hold is over
 * ({@link #releaseKeeping}) leaves {@code owner} and {@code holds: 1}, sets {@code releasedAt}, and turns
 * the lease into one nobody renews, {@code leaseMs} being the time left: waiters take it over once it
 * stays unchanged that long, as they would a crashed holder's, or as soon as the database's clock says
 * {@code releasedAt + leaseMs} has passed. That is the one decision a server clock may make alone,
 * because nobody is inside such a lock: a clock step can end a minimum hold early or late, never let two
 * holders overlap. Every grant removes {@code releasedAt}.
 *
 * <p><b>No wall clock decides.</b> Acquisition is an upsert on {@code {_id, holds: 0}} (and the queue
 * empty or headed by the caller's manager): it takes a free lock or creates a new one in one round trip, and a duplicate-key error means the lock is held.
 * The holder's renewals move {@code beat} (and {@code renewedAt}); a waiter reads the lock's state
 * ({@code version}, {@code beat}, {@code renewedAt}) and takes the lock over only when the coordinator
 * has seen that very state unchanged for a whole lease on its own monotonic clock, with a
 * compare-and-set whose filter is that state: equality filters only, no {@code $expr}, no
 * {@code $$NOW}. The one use of the database's clock is the fast path for a lease that ended very long
 * ago ({@link #LONG_AGO}): it reads {@code $$NOW} in the same aggregation, and is skipped where the
 * server refuses that aggregation. Every other change filters on {@code _id} and {@code owner}, and
 * re-entry and release also on {@code version}. Renewal never moves {@code version}, so it never makes
 * the owner's own compare-and-set fail. Released documents stay, so tokens keep growing.
 *
 * <p><b>Older versions.</b> Documents written before {@code beat} existed work as they are: a missing
 * {@code beat} is part of the state like any value. A holder still running the earlier version renews
 * {@code renewedAt} only; its lease id lacks the {@value LockDocument#BEAT_RENEWED} prefix, so for its locks
 * {@code renewedAt} is part of the watched state and of the takeover's filter, and it is seen renewing. Old
 * waiters judge leases by {@code renewedAt + leaseMs <= $$NOW} as before; this version keeps writing
 * both fields, so during a rolling upgrade the old rule still works (with its clock assumption) until the
 * last old node is gone.
 *
 * <p>Writes use majority write concern and reads go to the primary with majority read concern,
 * whatever the collection given was configured with. Thread-safe.
 *
 * <p><b>Its parts</b>, package-private: {@code LockDocument} (the field names above), {@code WatchedState}
 * (a waiter's sighting, and the takeover's filter on it), {@code LockWrites} (the grant), {@code StoreCalls}
 * (every request, and what its failures become) and {@code BatchRenewal} (a renewal round).
 */
public final class MongoLockStore implements LockStore {


    /**
     * The fast path: a lock left unrenewed, by the database's clock, for its lease + 3 % and then more than
     * this (and more than its lease) is taken over at once. It assumes the database's clock never steps
     * forward by max(this, the lease) between a renewal and a waiter's read; smaller steps, and any step
     * back, are harmless.
     */
    public static final Duration LONG_AGO = Duration.ofMinutes(1);

    /**
     * How long a free lock waits, unchanged, for the manager at the head of its queue before a waiter
     * takes it over and drops that head (at most the lease, whichever is shorter). A live head takes its
     * turn within milliseconds of the pushed release notice, or within its polling backoff (at most
     * 500 ms) without one; a crashed or frozen one costs this much, once.
     */
    public static final Duration TURN_GRACE = Duration.ofSeconds(3);

    private static final FindOneAndUpdateOptions UPSERT_BEFORE =
            new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.BEFORE);
    private static final FindOneAndUpdateOptions BEFORE =
            new FindOneAndUpdateOptions().returnDocument(ReturnDocument.BEFORE);

    /** Every call's bound unless the caller configures its own (as {@code MongoLockManager}'s builder does). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private final MongoCollection<Document> locks;
    private final Duration timeout;
    private final StoreCalls calls;
    private final SessionDocuments sessions;
    private final TokenFloor tokenFloor;
    /** The acquire's parts for the manager that acquired last (one manager per store, in practice). */
    private volatile ManagerTerms lastManager;

    /**
     * A store whose every call is bounded by {@link #DEFAULT_TIMEOUT}. A store given a collection alone
     * cannot ask what server it talks to: it never reads the database's clock (a router may sit in
     * between), and it cannot refuse a server where locking is unsafe. {@code MongoLockManager} uses
     * {@link #MongoLockStore(MongoDatabase, String, Duration, LockMetrics)}, which can.
     */
    public MongoLockStore(MongoCollection<Document> collection) {
        this(collection, DEFAULT_TIMEOUT);
    }

    /**
     * @param timeout bounds every call, whatever the client's own settings (its socket timeout may be 0,
     *                "forever"): the driver's client-side operation timeout ({@code timeoutMS}) covers
     *                server selection, the write concern's wait for a majority and the answer. A call past it
     *                fails with {@link LockStoreException}, {@code outcomeUnknown()} set when the request was sent.
     */
    public MongoLockStore(MongoCollection<Document> collection, Duration timeout) {
        this(collection, timeout, LockMetrics.NONE);
    }

    /** As above; every failed call is also reported to {@code metrics} ({@link LockMetrics#storeFailed}). */
    public MongoLockStore(MongoCollection<Document> collection, Duration timeout, LockMetrics metrics) {
        this(collection, timeout, metrics, null, ServerProfile.UNCHECKED);
    }

    /**
     * The lock collection {@code collection} of {@code database}. Before its first lock operation the store
     * asks the server what it is ({@code hello} and {@code buildInfo}, once): behind a {@code mongos} it
     * never compares the router's clock with a shard's (no fast path), and on FerretDB 1.x, where updates
     * of one document are not atomic, every call fails with {@link io.github.mongolock.LockConfigurationException}.
     */
    public MongoLockStore(MongoDatabase database, String collection, Duration timeout, LockMetrics metrics) {
        this(database.getCollection(collection), timeout, metrics,
                database.withTimeout(Math.max(timeout.toMillis(), 1), TimeUnit.MILLISECONDS)
                        .withReadPreference(ReadPreference.primary()), null);
    }

    /** A store that takes {@code server} as what it talks to, without asking (tests). */
    MongoLockStore(MongoCollection<Document> collection, Duration timeout, LockMetrics metrics, ServerProfile server) {
        this(collection, timeout, metrics, null, Objects.requireNonNull(server, "server"));
    }

    private MongoLockStore(MongoCollection<Document> collection, Duration timeout, LockMetrics metrics,
                           MongoDatabase database, ServerProfile server) {
        Objects.requireNonNull(timeout, "timeout");
        this.timeout = timeout;
        this.locks = collection
                .withWriteConcern(WriteConcern.MAJORITY)
                .withReadPreference(ReadPreference.primary())
                .withReadConcern(ReadConcern.MAJORITY)
                .withTimeout(Math.max(timeout.toMillis(), 1), TimeUnit.MILLISECONDS);
        this.calls = new StoreCalls(collection.getNamespace().getFullName(), Objects.requireNonNull(metrics, "metrics"),
                database, server);
        this.sessions = new SessionDocuments(locks, calls);
        this.tokenFloor = new TokenFloor(locks, calls);
    }

    /** The lock collection with the store's read and write concerns and timeout, e.g. for a {@link MongoReleaseFeed}. */
    public MongoCollection<Document> collection() {
        return locks;
    }

    /** How this store sends its requests (for the idle clean-up, which shares its concerns and reports). */
    StoreCalls calls() {
        return calls;
    }

    /** What bounds every call of this store. */
    public Duration timeout() {
        return timeout;
    }

    @Override
    public AcquireAttempt tryAcquire(String name, String owner, String session) {
        ManagerTerms last = lastManager; // the manager's parts of the command, built once per manager
        ManagerTerms terms = last != null && last.owns(owner) ? last : (lastManager = ManagerTerms.of(LockStore.managerOf(owner)));
        String manager = terms.manager();
        try {
            // The BEFORE image is this write's own input; new state is computed from it (see class doc).
            String leaseId = newLeaseId();
            Document before = calls.findOneAndUpdate("acquire", name, locks, freeForManager(name, terms),
                    take(owner, session, leaseId, terms.unqueued()), UPSERT_BEFORE);
            return before == null ? tokenFloor.grantCreated(name, owner, leaseId) : granted(before, leaseId);
        } catch (LockStoreException failure) {
            if (!StoreCalls.isDuplicateKey(failure.getCause())) {
                throw failure;
            }
        }
        Document state = read(name);
        if (state == null) {
            return AcquireAttempt.Busy.unknown();
        }
        if (HeldBySession.isHeldBySession(state)) {
            return AcquireAttempt.Busy.seen(sessionSighting(name, state), queue(state).contains(manager));
        }
        Sighting sighting = WatchedState.sightingOf(state);
        String head = ((WatchedState) sighting.state()).head();
        if (number(state, HOLDS) == 0 && (head == null || head.equals(manager))) {
            // Released between the two calls, and our turn: take it if it is still as just read.
            return takeOver(name, owner, session, sighting);
        }
        return AcquireAttempt.Busy.seen(sighting, queue(state).contains(manager));
    }

    @Override
    public AcquireAttempt takeOver(String name, String owner, String session, Sighting sighting) {
        if (sighting.state() instanceof HeldBySession seen) {
            return takeFromSession(name, owner, session, seen);
        }
        if (!(sighting.state() instanceof WatchedState seen)) {
            throw new IllegalArgumentException("not a sighting of this store: " + sighting);
        }
        String leaseId = newLeaseId();
        String manager = LockStore.managerOf(owner);
        // A head that let a free lock wait a whole watch period did not take its turn: out of the queue.
        List<String> unqueued = seen.head() == null || seen.head().equals(manager)
                ? List.of(manager) : List.of(manager, seen.head());
        // Equality on the watched state: any renewal, re-entry, release or grant since the sighting makes
        // this match nothing. A missing field (a document of the earlier version) matches as null.
        Document before = calls.call("take over", name, () -> locks.findOneAndUpdate(seen.filter(name),
                take(owner, session, leaseId, unqueued), BEFORE));
        return before == null ? AcquireAttempt.Busy.unknown() : granted(before, leaseId);
    }

    /**
     * The takeover of a lock held under a session the waiter watched unrenewed for its lease: first the session
     * ends (the compare-and-set on the beat watched: a renewal since makes it miss, and the holder's renewals miss
     * from then on), then the lock is taken by the compare-and-set on its state seen. Without the first step the
     * holder's renewal could land after the take and make it believe again (spec/MongoLockSessions.tla,
     * "TakeUnexpired"). The session's other locks become free to take at once for every waiter.
     */
    private AcquireAttempt takeFromSession(String name, String owner, String session, HeldBySession seen) {
        String manager = LockStore.managerOf(owner);
        if (!seen.sessionEnded() && !sessions.expire(seen.session(), seen.sessionBeat(), manager)) {
            Document now = sessions.read(seen.session(), name, false);
            if (now != null && LockDocument.LIVE.equals(now.get(LockDocument.STATE))) {
                return AcquireAttempt.Busy.unknown(); // renewed since: the holder is alive, watch again
            }
        }
        String leaseId = newLeaseId();
        Document before = calls.call("take over", name, () -> locks.findOneAndUpdate(seen.filter(name),
                take(owner, session, leaseId, List.of(manager)), BEFORE));
        return before == null ? AcquireAttempt.Busy.unknown() : granted(before, leaseId);
    }

    /** The sighting of a lock held under a session: the lock as read, and its session read after it. */
    private Sighting sessionSighting(String name, Document lock) {
        return HeldBySession.sightingOf(lock, sessions.read(lock.getString(LockDocument.SESSION), name,
                calls.server("inspect", name).oneClock()));
    }

    @Override
    public AcquireAttempt handOver(String name, String owner, long version, String newOwner, String session) {
        String leaseId = newLeaseId();
        // The release's own compare-and-set, turned into the next acquisition's grant.
        Document before = calls.call("hand over", name, () -> locks.findOneAndUpdate(
                and(eq(ID, name), eq(OWNER, owner), eq(VERSION, version), eq(HOLDS, 1)),
                take(newOwner, session, leaseId, List.of()), BEFORE));
        return before == null ? AcquireAttempt.Busy.unknown() : granted(before, leaseId);
    }

    @Override
    public void joinQueue(String name, String manager) {
        calls.call("queue for", name, () -> locks.updateOne(eq(ID, name), addToSet(QUEUE, manager)));
    }

    @Override
    public void leaveQueue(String name, String manager) {
        calls.call("leave the queue of", name, () -> locks.updateOne(eq(ID, name), pullAll(QUEUE, List.of(manager))));
    }

    /**
     * The lock's document with the database's current time as {@value LockDocument#SERVER_NOW}, in one read; where
     * the server refuses {@code $$NOW} in an aggregation (FerretDB 1.x), the plain document: the fast
     * path is then skipped, nothing else changes. Null when there is no document.
     */
    private Document read(String name) {
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

    @Override
    public boolean reenter(String name, String owner, long version) {
        return calls.updateOne("re-enter", name, locks, ownedAt(name, owner, version), LockWrites.reenter())
                .getMatchedCount() == 1;
    }

    @Override
    public boolean release(String name, String owner, long version, int remainingHolds) {
        Bson update = remainingHolds == 0 ? LockWrites.free() : LockWrites.holds(remainingHolds);
        return calls.updateOne("release", name, locks, ownedAt(name, owner, version), update).getMatchedCount() == 1;
    }

    @Override
    public boolean releaseKeeping(String name, String owner, long version, Duration keepFor) {
        // The holder's lease turned into one nobody renews, of the time left: a new lease id (a renewal still
        // in flight misses it), and beat and version moved so every waiter's watch starts again from here.
        // No session any more: nobody renews a kept lease, waiters watch the lock itself (as an earlier version does).
        Bson update = combine(set(HOLDS, 1), set(LEASE_ID, KEPT + new ObjectId().toHexString()),
                set(LEASE_MS, wholeMillisUp(keepFor)), inc(VERSION, 1L), inc(BEAT, 1L), unset(LockDocument.SESSION),
                currentDate(RENEWED_AT), currentDate(RELEASED_AT));
        return calls.call("release", name, () -> locks.updateOne(
                and(eq(ID, name), eq(OWNER, owner), eq(VERSION, version)), update)).getMatchedCount() == 1;
    }

    @Override
    public OptionalLong resync(String name, String owner, String leaseId, int holds) {
        Bson update = holds == 0 ? LockWrites.free() : combine(set(HOLDS, holds), inc(VERSION, 1L), currentDate(RENEWED_AT));
        // The BEFORE image is this write's own input (see class doc): the new version is one more. The whole
        // document, no projection: FerretDB 1.24 refuses findAndModify's "fields" (NotImplemented), and a
        // resync is rare.
        Document before = calls.call("resync", name, () -> locks.findOneAndUpdate(
                and(eq(ID, name), eq(OWNER, owner), eq(LEASE_ID, leaseId)), update, BEFORE));
        return before == null ? OptionalLong.empty() : OptionalLong.of(number(before, VERSION) + 1);
    }

    @Override
    public void abandon(String name, String owner) {
        calls.call("clean up", name, () -> locks.updateOne(and(eq(ID, name), eq(OWNER, owner)), LockWrites.free()));
    }

    @Override
    public String openSession(String manager, Duration lease) {
        return sessions.open(manager, lease);
    }

    @Override
    public SessionRenewal renewSession(String session) {
        return sessions.renew(session);
    }

    @Override
    public void endSession(String session) {
        sessions.end(session, "its manager");
    }

    @Override
    public SessionCheck checkSession(String session, Collection<LeaseClaim> claims) {
        return sessions.check(session, claims);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        Document document = read(name);
        if (document != null && HeldBySession.isHeldBySession(document)) {
            Document session = sessions.read(document.getString(LockDocument.SESSION), name, calls.server("inspect", name).oneClock());
            if (session == null || !LockDocument.LIVE.equals(session.get(LockDocument.STATE))) {
                return Optional.empty(); // for people: its session ended; the next waiter takes it
            }
            // For people: the session's lease and last renewal are the lock's.
            document = new Document(document).append(RENEWED_AT, session.get(RENEWED_AT)).append(LEASE_MS, session.get(LEASE_MS))
                    .append(SERVER_NOW, session.get(SERVER_NOW));
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
