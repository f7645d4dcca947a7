package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.expr;
import static com.mongodb.client.model.Filters.gt;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Filters.or;
import static com.mongodb.client.model.Projections.include;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.set;

import com.mongodb.ErrorCategory;
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
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockInterruptedException;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.LeaseClaim;
import io.github.mongolock.core.LockStore;
import java.time.Duration;
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
import java.util.Set;
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
 *   owner:      "web-1-4711-3f2a:9c0e51d2:42" | null,   // <instance-id>:<manager nonce>:<acquisition number>; null when free
 *   holds:      1,                      // the owner's hold count; 0 when free
 *   version:    NumberLong(17),         // +1 on every acquisition, re-entry and release (the compare-and-set key)
 *   token:      NumberLong(6),          // fencing token: +1 on every fresh acquisition, never reset
 *   leaseId:    "6740c1f2a9e8b3d1c0f4e2a7",  // unique per fresh acquisition; renewals match on it
 *   leaseMs:    NumberLong(30000),      // the holder's lease length
 *   acquiredAt: ISODate(...),           // database clock, at the fresh acquisition
 *   renewedAt:  ISODate(...)            // database clock, at the last acquisition, re-entry or renewal
 * }
 * }</pre>
 *
 * <p>The lease runs out at {@code renewedAt + leaseMs} by the database's clock ({@code $$NOW}); the
 * client's clock never takes part. Acquisition is an upsert on {@code {_id, holds: 0}}: it takes a
 * free lock or creates a new one in one round trip, and a duplicate-key error means the lock is
 * held. Only then is the holder read, and an expired lease taken over with a non-upsert update
 * whose filter checks expiry with {@code $expr} (MongoDB rejects {@code $expr} in upsert filters).
 * Every other change filters on {@code _id} and {@code owner}, and re-entry and release also on
 * {@code version}. Renewal moves only {@code renewedAt}, never {@code version}, so a renewal never
 * makes the owner's own compare-and-set fail. Released documents stay, so tokens keep growing.
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
    static final String LEASE_ID = "leaseId";
    static final String LEASE_MS = "leaseMs";
    static final String ACQUIRED_AT = "acquiredAt";
    static final String RENEWED_AT = "renewedAt";

    private static final String REMAINING_MS = "remainingMs";
    private static final Document LEASE_END = new Document("$add", List.of("$" + RENEWED_AT, "$" + LEASE_MS));
    private static final Bson EXPIRED = expr(new Document("$lte", List.of(LEASE_END, "$$NOW")));
    private static final Bson NOT_EXPIRED = expr(new Document("$gt", List.of(LEASE_END, "$$NOW")));
    private static final FindOneAndUpdateOptions UPSERT_BEFORE =
            new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.BEFORE);
    private static final FindOneAndUpdateOptions BEFORE =
            new FindOneAndUpdateOptions().returnDocument(ReturnDocument.BEFORE);

    private final MongoCollection<Document> locks;
    private final String namespace;

    public MongoLockStore(MongoCollection<Document> collection) {
        this.locks = collection
                .withWriteConcern(WriteConcern.MAJORITY)
                .withReadPreference(ReadPreference.primary())
                .withReadConcern(ReadConcern.MAJORITY);
        this.namespace = collection.getNamespace().getFullName();
    }

    /** The lock collection with the store's read and write concerns, e.g. for a {@link MongoReleaseFeed}. */
    public MongoCollection<Document> collection() {
        return locks;
    }

    @Override
    public AcquireAttempt tryAcquire(String name, String owner, Duration lease) {
        String leaseId = new ObjectId().toHexString();
        Bson take = combine(set(OWNER, owner), set(HOLDS, 1), set(LEASE_ID, leaseId), set(LEASE_MS, lease.toMillis()),
                inc(VERSION, 1L), inc(TOKEN, 1L), currentDate(ACQUIRED_AT), currentDate(RENEWED_AT));
        try {
            // The BEFORE image is this write's own input; new state is computed from it (see class doc).
            Document before = call("acquire", name, () -> locks.findOneAndUpdate(
                    and(eq(ID, name), eq(HOLDS, 0)), take, UPSERT_BEFORE));
            return granted(before, leaseId);
        } catch (LockStoreException failure) {
            if (!isDuplicateKey(failure.getCause())) {
                throw failure;
            }
        }
        Document state = call("inspect", name, () -> locks.aggregate(List.of(
                Aggregates.match(eq(ID, name)),
                Aggregates.project(Projections.fields(include(OWNER, HOLDS),
                        Projections.computed(REMAINING_MS, new Document("$subtract", List.of(LEASE_END, "$$NOW"))))))).first());
        if (state == null) {
            return AcquireAttempt.Busy.unknown();
        }
        long remainingMs = number(state, REMAINING_MS);
        if (number(state, HOLDS) > 0 && remainingMs > 0) {
            return new AcquireAttempt.Busy(Optional.ofNullable(state.getString(OWNER)),
                    Optional.of(Duration.ofMillis(remainingMs)));
        }
        // Released meanwhile, or the lease ran out: take it over if that is still true at the write.
        Document before = call("take over", name, () -> locks.findOneAndUpdate(
                and(eq(ID, name), or(eq(HOLDS, 0), EXPIRED)), take, BEFORE));
        return before == null ? AcquireAttempt.Busy.unknown() : granted(before, leaseId);
    }

    private static AcquireAttempt granted(Document before, String leaseId) {
        if (before == null) {
            return new AcquireAttempt.Granted(1, 1, leaseId); // created by this upsert
        }
        return new AcquireAttempt.Granted(number(before, TOKEN) + 1, number(before, VERSION) + 1, leaseId);
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
    public OptionalLong resync(String name, String owner, String leaseId, int holds) {
        Bson update = holds == 0
                ? combine(set(OWNER, null), set(HOLDS, 0), inc(VERSION, 1L))
                : combine(set(HOLDS, holds), inc(VERSION, 1L), currentDate(RENEWED_AT));
        // The BEFORE image is this write's own input (see class doc): the new version is one more.
        Document before = call("resync", name, () -> locks.findOneAndUpdate(
                and(eq(ID, name), eq(OWNER, owner), eq(LEASE_ID, leaseId)), update,
                new FindOneAndUpdateOptions().projection(include(VERSION)).returnDocument(ReturnDocument.BEFORE)));
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
                and(in(ID, names), in(OWNER, owners), in(LEASE_ID, leaseIds)), currentDate(RENEWED_AT))).getMatchedCount();
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
        Document document = call("inspect", name, () -> locks.find(and(eq(ID, name), gt(HOLDS, 0), NOT_EXPIRED)).first());
        if (document == null) {
            return Optional.empty();
        }
        Date renewedAt = document.getDate(RENEWED_AT);
        return Optional.of(new LockInfo(name, document.getString(OWNER), (int) number(document, HOLDS),
                number(document, TOKEN), renewedAt.toInstant().plusMillis(number(document, LEASE_MS))));
    }

    private <T> T call(String operation, String name, Supplier<T> command) {
        try {
            return command.get();
        } catch (MongoInterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException("Interrupted while MongoDB was asked to " + operation + " lock \"" + name
                    + "\"; the interrupt flag is kept.", interrupted);
        } catch (MongoException failure) {
            // Server selection and connection failures happen before anything is sent; an operation
            // timeout (a MongoTimeoutException too) may strike after the write was applied.
            boolean neverSent = (failure instanceof MongoTimeoutException && !(failure instanceof MongoOperationTimeoutException))
                    || failure instanceof MongoSocketOpenException;
            throw new LockStoreException("MongoDB could not " + operation + " lock \"" + name + "\" in " + namespace
                    + ": " + failure.getMessage() + " Check that MongoDB is reachable and that the user may read and write "
                    + namespace + ".", failure, !neverSent);
        } catch (IllegalStateException clientClosed) {
            // The driver's answer to a call on a closed MongoClient ("state should be: open"): nothing was sent.
            boolean closedBeforeSending = String.valueOf(clientClosed.getMessage()).contains("should be: open");
            throw new LockStoreException("MongoDB could not " + operation + " lock \"" + name + "\": "
                    + clientClosed.getMessage() + ". Is the MongoClient closed? Close the lock manager before the client it uses.",
                    clientClosed, !closedBeforeSending);
        }
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
