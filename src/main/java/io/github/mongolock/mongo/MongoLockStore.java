package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Projections.include;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.addToSet;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.pullAll;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.unset;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.MongoServerException;
import com.mongodb.MongoSocketOpenException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Field;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockInterruptedException;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.LeaseClaim;
import io.github.mongolock.core.LeaseWatch;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.Sighting;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
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
 *   token:      NumberLong(6),          // fencing token: +1 on every fresh acquisition, never reset
 *   beat:       NumberLong(1203),       // +1 on every renewal: what waiters watch
 *   leaseId:    "b6740c1f2a9e8b3d1c0f4e2a7", // unique per fresh acquisition; renewals match on it ("b": renews beat)
 *   leaseMs:    NumberLong(30000),      // the holder's lease length
 *   acquiredAt: ISODate(...),           // database clock, at the fresh acquisition (for people)
 *   renewedAt:  ISODate(...),           // database clock, at the last acquisition, re-entry or renewal (for people, and the fast path)
 *   queue:      ["web-2-4711-3f2a:9c0e51d27a4b4e0f8d3c2b1a0f9e8d7c"], // managers waiting for it, in arrival order (absent or [] when none)
 *   releasedAt: ISODate(...)            // database clock, when a holder released it with a minimum hold left (see below)
 * }
 * }</pre>
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
 * {@code renewedAt} only; its lease id lacks the {@value #BEAT_RENEWED} prefix, so for its locks
 * {@code renewedAt} is part of the watched state and of the takeover's filter, and it is seen renewing. Old
 * waiters judge leases by {@code renewedAt + leaseMs <= $$NOW} as before; this version keeps writing
 * both fields, so during a rolling upgrade the old rule still works (with its clock assumption) until the
 * last old node is gone.
 *
 * <p>Writes use majority write concern and reads go to the primary with majority read concern,
 * whatever the collection given was configured with. Thread-safe.
 */
public final class MongoLockStore implements LockStore {

    static final String ID = "_id";
    static final String OWNER = "owner";
    static final String HOLDS = "holds";
    static final String VERSION = "version";
    static final String TOKEN = "token";
    static final String BEAT = "beat";
    static final String LEASE_ID = "leaseId";
    static final String LEASE_MS = "leaseMs";
    static final String ACQUIRED_AT = "acquiredAt";
    static final String RENEWED_AT = "renewedAt";
    static final String QUEUE = "queue";
    static final String RELEASED_AT = "releasedAt";
    private static final String QUEUE_HEAD = QUEUE + ".0";

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

    private static final String SERVER_NOW = "serverNow";
    private static final FindOneAndUpdateOptions UPSERT_BEFORE =
            new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.BEFORE);
    private static final FindOneAndUpdateOptions BEFORE =
            new FindOneAndUpdateOptions().returnDocument(ReturnDocument.BEFORE);

    /**
     * Starts every lease id this version writes. Its holders renew {@code beat}; a lease id without it
     * belongs to a holder of the earlier version, which renews {@code renewedAt} only.
     */
    static final String BEAT_RENEWED = "b";

    /**
     * Starts the lease id of a lease kept for a minimum hold ({@link #releaseKeeping}); it starts with
     * {@value #BEAT_RENEWED} too ("k" is no hex digit, so no other lease id starts this way). Only such a
     * lease may be ended by the database's clock reading {@code releasedAt}: a holder of the earlier version
     * that takes a kept lock over leaves {@code releasedAt} in place, and its own lease must not end by it.
     */
    static final String KEPT = BEAT_RENEWED + "k";

    /**
     * The state a waiter watches: equal only if nothing touched the lock in between. {@code renewedAt}
     * is part of it for the earlier version's holders, whose renewals move nothing else. {@code head}
     * is the queue's head while the lock is free (null while held): a free lock waits for its head, and
     * a new head starts a new watch. It is not part of the takeover's filter: a head that changed since
     * the sighting costs only fairness, never safety.
     */
    private record WatchedState(Object version, Object beat, Object renewedAt, boolean renewsBeat, String head,
                                Object owner, Object holds) {

        Bson filter(String name) {
            // Owner and hold count too, though the version alone names a state on MongoDB: a server whose
            // reads can see a write half-applied (the stand-in updates documents in place) could otherwise
            // pair a free lock's hold count with the version and beat of the grant that just took it.
            Bson state = and(eq(ID, name), eq(VERSION, version), eq(BEAT, beat), eq(OWNER, owner), eq(HOLDS, holds));
            // renewedAt is compared only when it is what the holder renews: an equality on a date is exact
            // on MongoDB (milliseconds) but not on every compatible server.
            return renewsBeat ? state : and(state, eq(RENEWED_AT, renewedAt));
        }
    }

    /** Every call's bound unless the caller configures its own (as {@code MongoLockManager}'s builder does). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private final MongoCollection<Document> locks;
    private final Duration timeout;
    private final LockMetrics metrics;
    private final String namespace;
    /** Where the server is asked what it is; null when the store was given a collection alone. */
    private final MongoDatabase database;
    /** Null until the server was asked (before the first lock operation). */
    private volatile ServerProfile server;

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
        this.database = database;
        this.server = server;
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.timeout = timeout;
        this.locks = collection
                .withWriteConcern(WriteConcern.MAJORITY)
                .withReadPreference(ReadPreference.primary())
                .withReadConcern(ReadConcern.MAJORITY)
                .withTimeout(Math.max(timeout.toMillis(), 1), TimeUnit.MILLISECONDS);
        this.namespace = collection.getNamespace().getFullName();
    }

    /** The lock collection with the store's read and write concerns and timeout, e.g. for a {@link MongoReleaseFeed}. */
    public MongoCollection<Document> collection() {
        return locks;
    }

    /** What bounds every call of this store. */
    public Duration timeout() {
        return timeout;
    }

    @Override
    public AcquireAttempt tryAcquire(String name, String owner, Duration lease) {
        String manager = LockStore.managerOf(owner);
        try {
            // The BEFORE image is this write's own input; new state is computed from it (see class doc).
            String leaseId = BEAT_RENEWED + new ObjectId().toHexString();
            Document before = call("acquire", name, () -> locks.findOneAndUpdate(
                    freeForManager(name, manager), take(owner, lease, leaseId, List.of(manager)), UPSERT_BEFORE));
            return granted(before, leaseId);
        } catch (LockStoreException failure) {
            if (!isDuplicateKey(failure.getCause())) {
                throw failure;
            }
        }
        Document state = read(name);
        if (state == null) {
            return AcquireAttempt.Busy.unknown();
        }
        Sighting sighting = sighting(state);
        String head = ((WatchedState) sighting.state()).head();
        if (number(state, HOLDS) == 0 && (head == null || head.equals(manager))) {
            // Released between the two calls, and our turn: take it if it is still as just read.
            return takeOver(name, owner, lease, sighting);
        }
        return AcquireAttempt.Busy.seen(sighting, queue(state).contains(manager));
    }

    /**
     * Free, and nobody queued ahead: {@code queue.0} missing (no queue, or an empty one) or this manager.
     * A flat filter, not {@code $and}: the upsert must insert the document under this name, and MongoDB
     * takes {@code _id} from either form, but FerretDB 1.24 only from a top-level equality (from an
     * {@code $and} it inserts a fresh ObjectId, so every acquire would be granted a lock of its own).
     */
    private static Bson freeForManager(String name, String manager) {
        return new Document(ID, name).append(HOLDS, 0)
                .append("$or", List.of(exists(QUEUE_HEAD, false), eq(QUEUE_HEAD, manager)));
    }

    @Override
    public AcquireAttempt takeOver(String name, String owner, Duration lease, Sighting sighting) {
        if (!(sighting.state() instanceof WatchedState seen)) {
            throw new IllegalArgumentException("not a sighting of this store: " + sighting);
        }
        String leaseId = BEAT_RENEWED + new ObjectId().toHexString();
        String manager = LockStore.managerOf(owner);
        // A head that let a free lock wait a whole watch period did not take its turn: out of the queue.
        List<String> unqueued = seen.head() == null || seen.head().equals(manager)
                ? List.of(manager) : List.of(manager, seen.head());
        // Equality on the watched state: any renewal, re-entry, release or grant since the sighting makes
        // this match nothing. A missing field (a document of the earlier version) matches as null.
        Document before = call("take over", name, () -> locks.findOneAndUpdate(seen.filter(name),
                take(owner, lease, leaseId, unqueued), BEFORE));
        return before == null ? AcquireAttempt.Busy.unknown() : granted(before, leaseId);
    }

    @Override
    public AcquireAttempt handOver(String name, String owner, long version, String newOwner, Duration lease) {
        String leaseId = BEAT_RENEWED + new ObjectId().toHexString();
        // The release's own compare-and-set, turned into the next acquisition's grant.
        Document before = call("hand over", name, () -> locks.findOneAndUpdate(
                and(eq(ID, name), eq(OWNER, owner), eq(VERSION, version), eq(HOLDS, 1)),
                take(newOwner, lease, leaseId, List.of()), BEFORE));
        return before == null ? AcquireAttempt.Busy.unknown() : granted(before, leaseId);
    }

    @Override
    public void joinQueue(String name, String manager) {
        call("queue for", name, () -> locks.updateOne(eq(ID, name), addToSet(QUEUE, manager)));
    }

    @Override
    public void leaveQueue(String name, String manager) {
        call("leave the queue of", name, () -> locks.updateOne(eq(ID, name), pullAll(QUEUE, List.of(manager))));
    }

    private static Bson take(String owner, Duration lease, String leaseId, List<String> unqueued) {
        Bson grant = combine(set(OWNER, owner), set(HOLDS, 1), set(LEASE_ID, leaseId), set(LEASE_MS, wholeMillisUp(lease)),
                inc(VERSION, 1L), inc(TOKEN, 1L), inc(BEAT, 1L), currentDate(ACQUIRED_AT), currentDate(RENEWED_AT),
                unset(RELEASED_AT));
        return unqueued.isEmpty() ? grant : combine(grant, pullAll(QUEUE, unqueued));
    }

    /**
     * A duration as stored, in whole milliseconds rounded up (at least 1): a lease stored shorter than the
     * holder counts it would shorten every waiter's watch, and with it the margin for clock rates.
     */
    static long wholeMillisUp(Duration duration) {
        long millis = duration.toMillis();
        return Math.max(1, duration.equals(Duration.ofMillis(millis)) ? millis : millis + 1);
    }

    private static List<?> queue(Document state) {
        return state.get(QUEUE) instanceof List<?> queue ? queue : List.of();
    }

    private static AcquireAttempt.Granted granted(Document before, String leaseId) {
        if (before == null) {
            return new AcquireAttempt.Granted(1, 1, leaseId); // created by this upsert
        }
        return new AcquireAttempt.Granted(number(before, TOKEN) + 1, number(before, VERSION) + 1, leaseId);
    }

    /**
     * The lock's document with the database's current time as {@value #SERVER_NOW}, in one read; where
     * the server refuses {@code $$NOW} in an aggregation (FerretDB 1.x), the plain document: the fast
     * path is then skipped, nothing else changes. Null when there is no document.
     */
    private Document read(String name) {
        if (!server("inspect", name).oneClock()) {
            return call("inspect", name, () -> locks.find(eq(ID, name)).first());
        }
        try {
            return call("inspect", name, () -> locks.aggregate(List.of(
                    Aggregates.match(eq(ID, name)),
                    Aggregates.addFields(new Field<>(SERVER_NOW, "$$NOW")))).first());
        } catch (LockStoreException failure) {
            if (!(failure.getCause() instanceof MongoCommandException)) {
                throw failure;
            }
            return call("inspect", name, () -> locks.find(eq(ID, name)).first());
        }
    }

    /**
     * The database's time read with the document, or null: FerretDB 1.24 neither refuses nor evaluates
     * {@code $$NOW} in {@code $addFields}, it returns the string "$$NOW", and a server without the field
     * must cost only the fast path.
     */
    private static Date serverNow(Document state) {
        return state.get(SERVER_NOW) instanceof Date now ? now : null;
    }

    private Sighting sighting(Document state) {
        Object version = state.get(VERSION);
        Object renewedAt = state.get(RENEWED_AT);
        long leaseMs = number(state, LEASE_MS);
        Date serverNow = serverNow(state);
        boolean endedLongAgo = false;
        if (serverNow != null && renewedAt instanceof Date renewed && number(state, HOLDS) > 0) {
            // Unrenewed for the waiter's own watch period (lease + drift margin) and then max(1 min, lease)
            // more: only a forward step of the database's clock of at least that much could fake it.
            long watchMs = LeaseWatch.watchPeriod(Duration.ofMillis(leaseMs)).toMillis();
            long unrenewedMs = serverNow.getTime() - renewed.getTime();
            endedLongAgo = unrenewedMs > watchMs + Math.max(LONG_AGO.toMillis(), leaseMs);
        }
        if (serverNow != null && state.get(RELEASED_AT) instanceof Date released && number(state, HOLDS) > 0
                && state.get(LEASE_ID) instanceof String kept && kept.startsWith(KEPT)) {
            // A minimum hold whose holder released it: nobody is inside, so its end is no safety matter, and the
            // database's clock may say when it is over. Without this, a waiter that first sees it late would
            // wait a whole watch more, and a lone instance's next job tick would find it still taken.
            endedLongAgo |= serverNow.getTime() - released.getTime() >= leaseMs;
        }
        String owner = state.getString(OWNER);
        String leaseId = state.getString(LEASE_ID);
        boolean renewsBeat = leaseId != null && leaseId.startsWith(BEAT_RENEWED);
        List<?> queue = queue(state);
        String head = number(state, HOLDS) == 0 && !queue.isEmpty() ? String.valueOf(queue.get(0)) : null;
        String holder = owner != null ? owner : head != null ? "nobody (free, queued for " + head + ")" : "nobody";
        // A free lock waits for its queue's head no longer than TURN_GRACE: taking a free lock can never
        // break mutual exclusion, so only fairness is at stake, and a live head takes its turn long before.
        Duration watched = head != null && leaseMs > TURN_GRACE.toMillis() ? TURN_GRACE : Duration.ofMillis(leaseMs);
        return new Sighting(new WatchedState(version, state.get(BEAT), renewedAt, renewsBeat, head, owner,
                state.get(HOLDS)), holder, watched, endedLongAgo);
    }

    @Override
    public boolean reenter(String name, String owner, long version) {
        return call("re-enter", name, () -> locks.updateOne(
                and(eq(ID, name), eq(OWNER, owner), eq(VERSION, version)),
                combine(inc(HOLDS, 1), inc(VERSION, 1L), currentDate(RENEWED_AT)))).getMatchedCount() == 1;
    }

    @Override
    public boolean release(String name, String owner, long version, int remainingHolds) {
        Bson update = remainingHolds == 0
                ? combine(set(OWNER, null), set(HOLDS, 0), inc(VERSION, 1L))
                : combine(set(HOLDS, remainingHolds), inc(VERSION, 1L));
        return call("release", name, () -> locks.updateOne(
                and(eq(ID, name), eq(OWNER, owner), eq(VERSION, version)), update)).getMatchedCount() == 1;
    }

    @Override
    public boolean releaseKeeping(String name, String owner, long version, Duration keepFor) {
        // The holder's lease turned into one nobody renews, of the time left: a new lease id (a renewal still
        // in flight misses it), and beat and version moved so every waiter's watch starts again from here.
        Bson update = combine(set(HOLDS, 1), set(LEASE_ID, KEPT + new ObjectId().toHexString()),
                set(LEASE_MS, wholeMillisUp(keepFor)), inc(VERSION, 1L), inc(BEAT, 1L),
                currentDate(RENEWED_AT), currentDate(RELEASED_AT));
        return call("release", name, () -> locks.updateOne(
                and(eq(ID, name), eq(OWNER, owner), eq(VERSION, version)), update)).getMatchedCount() == 1;
    }

    @Override
    public OptionalLong resync(String name, String owner, String leaseId, int holds) {
        Bson update = holds == 0
                ? combine(set(OWNER, null), set(HOLDS, 0), inc(VERSION, 1L))
                : combine(set(HOLDS, holds), inc(VERSION, 1L), currentDate(RENEWED_AT));
        // The BEFORE image is this write's own input (see class doc): the new version is one more. The whole
        // document, no projection: FerretDB 1.24 refuses findAndModify's "fields" (NotImplemented), and a
        // resync is rare.
        Document before = call("resync", name, () -> locks.findOneAndUpdate(
                and(eq(ID, name), eq(OWNER, owner), eq(LEASE_ID, leaseId)), update, BEFORE));
        return before == null ? OptionalLong.empty() : OptionalLong.of(number(before, VERSION) + 1);
    }

    @Override
    public void abandon(String name, String owner) {
        call("clean up", name, () -> locks.updateOne(and(eq(ID, name), eq(OWNER, owner)),
                combine(set(OWNER, null), set(HOLDS, 0), inc(VERSION, 1L))));
    }

    @Override
    public Set<String> renew(Collection<LeaseClaim> claims) {
        if (claims.isEmpty()) {
            return Set.of();
        }
        List<String> names = new ArrayList<>(claims.size());
        Set<String> owners = new LinkedHashSet<>();
        List<String> leaseIds = new ArrayList<>(claims.size());
        Map<String, LeaseClaim> byName = new HashMap<>(claims.size() * 2);
        for (LeaseClaim claim : claims) {
            names.add(claim.name());
            owners.add(claim.owner());
            leaseIds.add(claim.leaseId());
            byName.put(claim.name(), claim);
        }
        String what = claims.size() + " lock(s) including";
        // Lease ids are unique per acquisition, so each claim matches at most its own document:
        // the matched count is exact, and no other acquisition's lease (not even an orphan) is extended.
        long matched = call("renew", what + " " + names.get(0), () -> locks.updateMany(
                and(in(ID, names), in(OWNER, owners), in(LEASE_ID, leaseIds)),
                combine(inc(BEAT, 1L), currentDate(RENEWED_AT)))).getMatchedCount();
        if (matched == claims.size()) {
            return byName.keySet();
        }
        // Some were not ours any more: one read tells which claims still hold.
        Set<String> confirmed = new HashSet<>();
        call("check", what + " " + names.get(0), () -> locks.find(in(ID, names))
                .projection(include(OWNER, LEASE_ID)).into(new ArrayList<>()))
                .forEach(document -> {
                    LeaseClaim claim = byName.get(document.getString(ID));
                    if (claim != null && claim.owner().equals(document.getString(OWNER))
                            && claim.leaseId().equals(document.getString(LEASE_ID))) {
                        confirmed.add(claim.name());
                    }
                });
        return confirmed;
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        Document document = read(name);
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

    private <T> T call(String operation, String name, Supplier<T> command) {
        server(operation, name).requireAtomicUpdates(namespace);
        return send(operation, name, command);
    }

    /**
     * What the server is: asked once, before the first lock operation; a failure to ask is that operation's
     * failure, reported (and counted in the metrics) as it.
     */
    private ServerProfile server(String operation, String name) {
        ServerProfile known = server;
        if (known == null) {
            synchronized (this) {
                known = server;
                if (known == null) {
                    known = send(operation, name, () -> ServerProfile.of(database));
                    server = known;
                }
            }
        }
        return known;
    }

    private <T> T send(String operation, String name, Supplier<T> command) {
        try {
            return command.get();
        } catch (MongoInterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException("Interrupted while MongoDB was asked to " + operation + " lock \"" + name
                    + "\"; the interrupt flag is kept.", interrupted);
        } catch (MongoException failure) {
            if (!isDuplicateKey(failure)) {
                metrics.storeFailed(operation); // a duplicate key is the protocol's "held", not a failure
            }
            throw new LockStoreException("MongoDB could not " + operation + " lock \"" + name + "\" in " + namespace
                    + ": " + failure.getMessage() + " " + advice(failure, namespace), failure, !neverSent(failure));
        } catch (IllegalStateException clientClosed) {
            metrics.storeFailed(operation);
            // The driver's answer to a call on a closed MongoClient ("state should be: open"): nothing was sent.
            boolean closedBeforeSending = String.valueOf(clientClosed.getMessage()).contains("should be: open");
            throw new LockStoreException("MongoDB could not " + operation + " lock \"" + name + "\": "
                    + clientClosed.getMessage() + ". Is the MongoClient closed? Close the lock manager before the client it uses.",
                    clientClosed, !closedBeforeSending);
        }
    }

    /**
     * Whether a failure certainly happened before the request left the client: server selection and
     * connection failures. An operation timeout may strike after the write was applied, except while it
     * was still waiting for a server or a connection (the driver's messages for those two waits, which
     * under {@code timeoutMS} come as {@link MongoOperationTimeoutException} without a cause).
     */
    static boolean neverSent(MongoException failure) {
        if (failure instanceof MongoSocketOpenException) {
            return true;
        }
        if (failure instanceof MongoOperationTimeoutException) {
            String message = String.valueOf(failure.getMessage());
            return message.contains("waiting for a server") || message.contains("waiting for a connection");
        }
        return failure instanceof MongoTimeoutException;
    }

    /** What the user should do about a failure, as specific as the error allows. */
    static String advice(MongoException failure, String namespace) {
        return switch (failure.getCode()) {
            case 301 -> "This server does not support retryable writes (Amazon DocumentDB): add retryWrites=false to the"
                    + " connection string. mongolock stays correct without them: a write whose answer is lost is cleaned up"
                    + " (a fresh acquisition) or repaired by the owner's next call (re-entry, release).";
            case 13 -> "The user is not authorised: it needs find, insert, update and changeStream on " + namespace + ".";
            default -> "Check that MongoDB is reachable and that the user may read and write " + namespace + ".";
        };
    }

    private static boolean isDuplicateKey(Throwable failure) {
        return failure instanceof MongoServerException server
                && ErrorCategory.fromErrorCode(server.getCode()) == ErrorCategory.DUPLICATE_KEY;
    }

    private static long number(Document document, String field) {
        Object value = document.get(field);
        if (value instanceof Number number) {
            return number.longValue();
        }
        throw new io.github.mongolock.LockException("Lock document " + document.get(ID) + " has no numeric \"" + field
                + "\" (found " + value + "): the collection holds documents mongolock did not write.");
    }
}
