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

import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.LeaseClaim;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.PermitStore;
import io.github.mongolock.core.ReadWriteStore;
import io.github.mongolock.core.SessionCheck;
import io.github.mongolock.core.SessionRenewal;
import io.github.mongolock.core.Sighting;
import io.github.mongolock.mongo.LockWrites.ManagerTerms;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.bson.conversions.Bson;

/**
 * The lock protocol on a MongoDB collection: one document per lock name, one per session of a manager
 * ({@link SessionDocuments}), and the collection's state ({@link TokenFloor}, {@link IdleLockCleaner}), all in the
 * one collection. The documents, field by field, and every operation: docs/protocol.md ("The document",
 * "The protocol"); the field names are spelt in {@code LockDocument}.
 *
 * <p><b>Sessions.</b> A grant writes the lock's owner, a new lease id ({@value LockDocument#SESSION_HELD}...) and
 * its {@code session}; the manager renews the session document, never the lock. A waiter reads the lock, then its
 * session, and watches both ({@link HeldBySession}); {@link #takeOver} of such a lock first ends the session by a
 * compare-and-set on the beat watched, then takes the lock by a compare-and-set on its state and session. The
 * lock's own {@code leaseMs} is {@link LockDocument#EARLIER_VERSIONS_LEASE_MS}, so a waiter of the previous
 * version never takes a session lock over. Locks of no session (kept by a minimum hold, or held by the previous
 * version) are watched by their own state as before ({@link WatchedState}).
 *
 * <p><b>No wall clock decides.</b> Acquisition is an upsert on {@code {_id, holds: 0}} (and the queue empty or
 * headed by the caller's manager): it takes a free lock or creates a new one in one round trip, and a
 * duplicate-key error means the lock is held. Every filter is an equality: no {@code $expr}, no {@code $$NOW}.
 * The one use of the database's clock is the fast path for a session (or a lock of no session) unrenewed very
 * long ago ({@link #LONG_AGO}), read with {@code $$NOW} in the same aggregation, skipped where the server refuses
 * that aggregation or sits behind a router; and the end of a minimum hold, which nobody is inside. Every change
 * filters on {@code _id} and {@code owner}, and re-entry and release also on {@code version}.
 *
 * <p><b>Fairness</b> (docs/fairness.md): a free lock whose queue is not empty is taken only by the manager at the
 * queue's head; every grant pulls the grantee's manager from the queue ({@code $addToSet}, {@code $pullAll}, never
 * moving {@code version}). {@link #handOver} gives the lock from one acquisition to the next of the same manager
 * in one compare-and-set on {@code {_id, owner, version}}.
 *
 * <p><b>Minimum hold.</b> A release before the minimum hold is over ({@link #releaseKeeping}) leaves
 * {@code holds: 1}, sets {@code releasedAt}, leaves the session, and turns the lease into one nobody renews of the
 * time left: waiters take it over once it stays unchanged that long, or once the database's clock says
 * {@code releasedAt + leaseMs} has passed (a clock step can end a minimum hold early or late, never let two
 * holders overlap). Every grant removes {@code releasedAt}.
 *
 * <p>Writes use majority write concern and reads go to the primary with majority read concern, whatever the
 * collection given was configured with. Thread-safe.
 *
 * <p><b>Its parts</b>, package-private: {@code LockDocument} (the field names), {@code WatchedState} and
 * {@code HeldBySession} (a waiter's sighting, and the takeover's filter on it), {@code LockWrites} (the grant),
 * {@code StoreCalls} (every request, and what its failures become) and {@code SessionDocuments} (the sessions).
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
    private final PermitDocuments permits;
    private final ReadWriteDocuments readWrites;
    private final LockReads reads;
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
        this.tokenFloor = new TokenFloor(locks, calls);
        this.sessions = new SessionDocuments(locks, calls, tokenFloor);
        this.permits = new PermitDocuments(locks, calls, sessions);
        this.readWrites = new ReadWriteDocuments(locks, calls, sessions);
        this.reads = new LockReads(locks, calls, sessions);
    }

    /** The leased semaphores, in the same collection, under the same sessions and calls. */
    @Override
    public Optional<PermitStore> permitStore() {
        return Optional.of(permits);
    }

    /** The leased read-write locks, in the same collection, under the same sessions and calls. */
    @Override
    public Optional<ReadWriteStore> readWriteStore() {
        return Optional.of(readWrites);
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
    public Duration lateWritesWithin() {
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
            return tokenFloor.granted(name, owner, before, leaseId); // before null: created by this upsert
        } catch (LockStoreException failure) {
            if (!StoreCalls.isDuplicateKey(failure.getCause())) {
                throw failure;
            }
        }
        Document state = reads.read(name);
        if (state == null) {
            return AcquireAttempt.Busy.unknown();
        }
        if (HeldBySession.isHeldBySession(state)) {
            return AcquireAttempt.Busy.seen(HeldBySession.sightingOf(state, sessions.read(state.getString(LockDocument.SESSION),
                    name, serverNow(state))), queue(state).contains(manager));
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
            return sessions.takeOver(name, owner, session, seen);
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
        return before == null ? AcquireAttempt.Busy.unknown() : tokenFloor.granted(name, owner, before, leaseId);
    }

    @Override
    public AcquireAttempt handOver(String name, String owner, long version, String newOwner, String session) {
        String leaseId = newLeaseId();
        // The release's own compare-and-set, turned into the next acquisition's grant.
        Document before = calls.call("hand over", name, () -> locks.findOneAndUpdate(
                and(eq(ID, name), eq(OWNER, owner), eq(VERSION, version), eq(HOLDS, 1)),
                take(newOwner, session, leaseId, List.of()), BEFORE));
        // From a holder whose own grant was answered, so applied the token floor: a pending flag it shows is cleared
        // by a holder's last release, and the token may simply move on.
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

    @Override
    public boolean reenter(String name, String owner, long version) {
        return calls.updateOne("re-enter", name, locks, ownedAt(name, owner, version), LockWrites.reenter())
                .getMatchedCount() == 1;
    }

    @Override
    public boolean release(String name, String owner, long version, int remainingHolds) {
        Bson update = remainingHolds == 0 ? LockWrites.freeByHolder() : LockWrites.holds(remainingHolds);
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
        Bson update = holds == 0 ? LockWrites.freeByHolder() : combine(set(HOLDS, holds), inc(VERSION, 1L), currentDate(RENEWED_AT));
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
        return reads.inspect(name);
    }
}
