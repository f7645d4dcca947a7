package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gt;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Projections.include;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.setOnInsert;
import static io.github.mongolock.mongo.LockDocument.BEAT;
import static io.github.mongolock.mongo.LockDocument.CHECKS;
import static io.github.mongolock.mongo.LockDocument.ENDED;
import static io.github.mongolock.mongo.LockDocument.ENDED_AT;
import static io.github.mongolock.mongo.LockDocument.ENDED_BY;
import static io.github.mongolock.mongo.LockDocument.HOLDS;
import static io.github.mongolock.mongo.LockDocument.ID;
import static io.github.mongolock.mongo.LockDocument.LEASE_ID;
import static io.github.mongolock.mongo.LockDocument.LEASE_MS;
import static io.github.mongolock.mongo.LockDocument.LIVE;
import static io.github.mongolock.mongo.LockDocument.MANAGER;
import static io.github.mongolock.mongo.LockDocument.OWNER;
import static io.github.mongolock.mongo.LockDocument.RENEWED_AT;
import static io.github.mongolock.mongo.LockDocument.REVOKED_BY;
import static io.github.mongolock.mongo.LockDocument.REVOKED_OWNER;
import static io.github.mongolock.mongo.LockDocument.REVOKED_REASON;
import static io.github.mongolock.mongo.LockDocument.SESSION;
import static io.github.mongolock.mongo.LockDocument.STARTED_AT;
import static io.github.mongolock.mongo.LockDocument.STATE;
import static io.github.mongolock.mongo.LockDocument.VERSION;
import static io.github.mongolock.mongo.LockDocument.number;
import static io.github.mongolock.mongo.LockDocument.sessionId;

import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.UpdateOptions;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.LeaseClaim;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.SessionCheck;
import io.github.mongolock.core.SessionRenewal;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * The session documents of {@link MongoLockStore}, in the lock collection under a document {@code _id}:
 *
 * <pre>{@code
 * { _id: { mongolock: "session", id: "65f1c0a2e4b0c1d2e3f4a5b6" },
 *   manager:  "web-1-4711-3f2a:9c0e51d27a4b4e0f8d3c2b1a0f9e8d7c",
 *   state:    "live" | "ended",      // an ended session never becomes live again
 *   beat:     NumberLong(812),       // +1 on every renewal: what waiters watch
 *   leaseMs:  NumberLong(30000),     // the session's lease: every lock held under it has this lease
 *   checks:   NumberLong(0),         // +1 when an operator released one of its locks: its manager checks them
 *   startedAt, renewedAt, endedAt: ISODate(...),   // database clock, for people (and the fast path)
 *   endedBy:  "web-2-...:..." | "its manager" | "alice@ops-host" }
 * }</pre>
 *
 * Every write here is one single-document compare-and-set: the renewal matches only a live session, and a
 * waiter's expiry only the exact {@code beat} it watched unchanged for a lease. Nothing here compares clocks.
 * Thread-safe.
 */
final class SessionDocuments {

    private static final System.Logger LOG = System.getLogger(SessionDocuments.class.getName());
    private static final FindOneAndUpdateOptions AFTER = new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER);
    private static final FindOneAndUpdateOptions BEFORE = new FindOneAndUpdateOptions().returnDocument(ReturnDocument.BEFORE);
    private static final FindOneAndUpdateOptions UPSERT = new FindOneAndUpdateOptions().upsert(true);
    /** The index the session check reads through: sparse, since only held locks have a session. */
    static final String INDEX = "mongolock_session";

    private final MongoCollection<Document> locks;
    /**
     * The session check's reads, which decide whether a holder is told its lock was lost: local read concern on the
     * primary. A majority read on a primary elected moments ago can answer from a snapshot older than writes a
     * majority already acknowledged (it learns the commit point after its election), and so miss a grant its holder
     * has: a false {@code LEASE_LOST}. A local read on the primary includes every majority-acknowledged write (a
     * member without them cannot be elected). A write it shows that is later rolled back can only make the check
     * report a loss, or try to free a lock by a compare-and-set that then matches nothing.
     */
    private final MongoCollection<Document> checkReads;
    private final StoreCalls calls;
    private final TokenFloor tokenFloor;
    /**
     * Sessions this store ended, or found ended, by a compare-and-set: an ended session never becomes live again, so
     * the takes of its other locks skip the session's write (a dead manager's 10,000 locks cost one, not 10,000).
     */
    private final RecentSessions endedForSure = new RecentSessions(1_024);
    private volatile boolean indexed;

    SessionDocuments(MongoCollection<Document> locks, StoreCalls calls, TokenFloor tokenFloor) {
        this.tokenFloor = tokenFloor;
        this.locks = locks;
        this.checkReads = locks.withReadPreference(ReadPreference.primary()).withReadConcern(ReadConcern.LOCAL);
        this.calls = calls;
    }

    String open(String manager, Duration lease) {
        String session = new ObjectId().toHexString();
        // One upsert on a new id (so it inserts), dated by the database: an insert cannot take $currentDate.
        calls.call("open", StoreCalls.SESSION_SUBJECT + session, () -> locks.updateOne(eq(ID, sessionId(session)), combine(
                setOnInsert(MANAGER, manager), setOnInsert(STATE, LIVE), setOnInsert(BEAT, 0L),
                setOnInsert(LEASE_MS, LockWrites.wholeMillisUp(lease)), setOnInsert(CHECKS, 0L),
                currentDate(STARTED_AT), currentDate(RENEWED_AT)), new UpdateOptions().upsert(true)));
        indexOnce(); // after the first write that worked: an unreachable server costs one failure, not two
        return session;
    }

    SessionRenewal renew(String session) {
        Document after = calls.call("renew", StoreCalls.SESSION_SUBJECT + session, () -> locks.findOneAndUpdate(
                and(eq(ID, sessionId(session)), eq(STATE, LIVE)), combine(inc(BEAT, 1L), currentDate(RENEWED_AT)), AFTER));
        return after == null ? SessionRenewal.ENDED : new SessionRenewal(true, number(after, CHECKS));
    }

    /**
     * The takeover of a lock held under a session the waiter watched unrenewed for its lease: first the session
     * ends by a compare-and-set (on the beat watched: a renewal since makes it miss, and the holder's renewals miss
     * from then on), then the lock is taken by the compare-and-set on its state seen. Without the first step the
     * holder's renewal could land after the take and make it believe again (spec/MongoLockSessions.tla,
     * "TakeUnexpired"). The session's other locks become free to take at once for every waiter.
     *
     * <p>No read alone authorises the take. A session read as ended or missing, or one whose beat moved, is ended
     * (or found ended) by {@link #endUnlessLive}, a compare-and-set that fails on a live session: a replica set can
     * answer a read from a snapshot older than the session's insert (SERVER-53813, MongoDB 5.0 to 7.0), and a
     * session read as missing may be live.
     */
    AcquireAttempt takeOver(String name, String owner, String session, HeldBySession seen) {
        String manager = LockStore.managerOf(owner);
        boolean ended = endedForSure.contains(seen.session())
                || !seen.sessionEnded() && expire(seen.session(), seen.sessionBeat(), manager);
        if (!ended && !endUnlessLive(seen.session(), manager)) {
            return AcquireAttempt.Busy.unknown(); // live: renewed since, or never seen as it is; watch again
        }
        endedForSure.add(seen.session());
        String leaseId = LockWrites.newLeaseId();
        Document before = calls.call("take over", name, () -> locks.findOneAndUpdate(seen.filter(name),
                LockWrites.take(owner, session, leaseId, List.of(manager)), BEFORE));
        return before == null ? AcquireAttempt.Busy.unknown() : tokenFloor.granted(name, owner, before, leaseId);
    }

    /**
     * Whether {@code session} is ended now, decided by a compare-and-set: an upsert on {@code {_id, state: {$ne:
     * "live"}}}. It matches an ended session (and changes nothing, so its {@code endedAt} stays), inserts an ended one where there is none (a
     * tombstone: the id can never be live afterwards, since an open sets the state only when it inserts), and fails with a duplicate
     * key on a live one: false. A tombstone's {@code endedAt} is this machine's clock (an upsert cannot date by the
     * database's only on insert): it is for people and the clean-up of ended sessions, never for the protocol.
     */
    boolean endUnlessLive(String session, String by) {
        try {
            // A flat filter: the upsert takes its _id from a top-level equality on every server (LockWrites.freeForManager).
            // findAndModify, not update: FerretDB 1.24 answers an update's duplicate key without the count the driver needs.
            calls.call("end", StoreCalls.SESSION_SUBJECT + session, () -> locks.findOneAndUpdate(
                    new Document(ID, sessionId(session)).append(STATE, new Document("$ne", LIVE)),
                    combine(setOnInsert(STATE, ENDED), setOnInsert(ENDED_BY, by), setOnInsert(BEAT, 0L),
                            setOnInsert(LEASE_MS, 1L), setOnInsert(CHECKS, 0L), setOnInsert(ENDED_AT, new Date())), UPSERT));
            return true;
        } catch (LockStoreException failure) {
            if (StoreCalls.isDuplicateKey(failure.getCause())) {
                return false;
            }
            throw failure;
        }
    }

    /** The owner ends its session, whatever its beat. */
    void end(String session, String by) {
        calls.call("end", StoreCalls.SESSION_SUBJECT + session, () -> locks.updateOne(and(eq(ID, sessionId(session)), eq(STATE, LIVE)),
                combine(set(STATE, ENDED), set(ENDED_BY, by), currentDate(ENDED_AT))));
    }

    /**
     * A waiter ends a session it watched unrenewed for a lease: only if it is still live with the very
     * {@code beat} watched. False when it moved (renewed: the waiter watches again; or ended by someone else).
     */
    boolean expire(String session, Object beat, String by) {
        return calls.call("end", StoreCalls.SESSION_SUBJECT + session, () -> locks.updateOne(
                and(eq(ID, sessionId(session)), eq(STATE, LIVE), eq(BEAT, beat)),
                combine(set(STATE, ENDED), set(ENDED_BY, by), currentDate(ENDED_AT)))).getModifiedCount() == 1;
    }

    /**
     * The session's document, null when there is none. {@code serverNow}, the database's time read with the lock
     * just before (null: not known), is added to it as {@value LockDocument#SERVER_NOW}: read earlier than the
     * session, it can only make the session look renewed more recently than it was, never less (the fast path stays
     * on the safe side), and it spares the session read an aggregation.
     */
    Document read(String session, String lock, Date serverNow) {
        Document found = calls.call("inspect the session of", lock, () -> locks.find(eq(ID, sessionId(session))).first());
        if (found != null && serverNow != null) {
            found.append(LockDocument.SERVER_NOW, serverNow);
        }
        return found;
    }

    /** The locks held under {@code session}, and why the store thinks any of {@code claims} not among them was lost. */
    SessionCheck check(String session, Collection<LeaseClaim> claims) {
        List<SessionCheck.HeldUnder> held = new ArrayList<>();
        Set<String> found = new HashSet<>();
        calls.call("check the locks of", StoreCalls.SESSION_SUBJECT + session, () -> checkReads.find(HeldBySession.heldUnder(List.of(session)))
                .projection(include(OWNER, LEASE_ID, VERSION)).into(new ArrayList<>()))
                .forEach(document -> {
                    if (document.get(ID) instanceof String name && document.get(OWNER) instanceof String owner) {
                        String leaseId = document.getString(LEASE_ID);
                        held.add(new SessionCheck.HeldUnder(name, owner, leaseId, number(document, VERSION)));
                        found.add(owner + "/" + leaseId);
                    }
                });
        Map<String, LeaseClaim> lost = new HashMap<>();
        for (LeaseClaim claim : claims) {
            if (!found.contains(claim.owner() + "/" + claim.leaseId())) {
                lost.put(claim.name(), claim);
            }
        }
        Map<String, String> reasons = new HashMap<>();
        if (!lost.isEmpty()) {
            calls.call("check the lost locks of", StoreCalls.SESSION_SUBJECT + session, () -> checkReads.find(in(ID, lost.keySet()))
                    .projection(include(REVOKED_OWNER, REVOKED_BY, REVOKED_REASON)).into(new ArrayList<>()))
                    .forEach(document -> {
                        LeaseClaim claim = lost.get(String.valueOf(document.get(ID)));
                        // Owners are unique per acquisition, so a recorded revocation naming it is this claim's own,
                        // even when the lock has been granted again since (a grant leaves the revocation fields).
                        if (claim != null && claim.owner().equals(document.getString(REVOKED_OWNER))) {
                            reasons.put(claim.name(), SessionCheck.releasedByOperator(
                                    String.valueOf(document.get(REVOKED_BY)), String.valueOf(document.get(REVOKED_REASON))));
                        }
                    });
        }
        return new SessionCheck(held, reasons);
    }

    /**
     * The session check's index, created once per store when the first session opens; best effort: a user
     * without the right to create indexes gets a collection scan per check (every few minutes), and a warning.
     */
    private void indexOnce() {
        if (indexed) {
            return;
        }
        try {
            calls.call("create", StoreCalls.SESSION_SUBJECT + "index " + INDEX, () -> locks.createIndex(Indexes.ascending(SESSION),
                    new IndexOptions().name(INDEX).sparse(true)));
        } catch (LockStoreException refused) {
            LOG.log(Level.WARNING, "mongolock could not create the index {0} on {1}.session ({2}); the session check reads"
                    + " without it. Create it with db.{1}.createIndex('{'session: 1'}', '{'name: \"{0}\", sparse: true'}')",
                    INDEX, locks.getNamespace().getCollectionName(), refused.getMessage());
        }
        indexed = true;
    }
}
