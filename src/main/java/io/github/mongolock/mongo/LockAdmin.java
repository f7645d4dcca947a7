package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;
import static com.mongodb.client.model.Filters.gt;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Filters.or;
import static com.mongodb.client.model.Filters.regex;
import static com.mongodb.client.model.Filters.type;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.unset;
import static io.github.mongolock.mongo.LockDocument.CHECKS;
import static io.github.mongolock.mongo.LockDocument.SESSION;
import static io.github.mongolock.mongo.LockDocument.sessionId;
import static io.github.mongolock.mongo.LockDocument.ACQUIRED_AT;
import static io.github.mongolock.mongo.LockDocument.HOLDS;
import static io.github.mongolock.mongo.LockDocument.ID;
import static io.github.mongolock.mongo.LockDocument.LEASE_MS;
import static io.github.mongolock.mongo.LockDocument.OWNER;
import static io.github.mongolock.mongo.LockDocument.QUEUE_HEAD;
import static io.github.mongolock.mongo.LockDocument.RELEASED_AT;
import static io.github.mongolock.mongo.LockDocument.RENEWED_AT;
import static io.github.mongolock.mongo.LockDocument.REVOKED_AT;
import static io.github.mongolock.mongo.LockDocument.REVOKED_BY;
import static io.github.mongolock.mongo.LockDocument.REVOKED_OWNER;
import static io.github.mongolock.mongo.LockDocument.REVOKED_REASON;
import static io.github.mongolock.mongo.LockDocument.SERVER_NOW;
import static io.github.mongolock.mongo.LockDocument.TOKEN;
import static io.github.mongolock.mongo.LockDocument.VERSION;
import static io.github.mongolock.mongo.LockDocument.number;
import static io.github.mongolock.mongo.LockDocument.queue;
import static io.github.mongolock.mongo.LockDocument.serverNow;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Field;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Sorts;
import io.github.mongolock.ForceReleaseRefusedException;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.core.LockArguments;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.bson.BsonType;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * What an operator does to locks from outside the applications that hold them: list the held and queued locks,
 * inspect one, and force the release of a lock whose holder is alive but wedged (Redisson's {@code forceUnlock},
 * Hazelcast's {@code forceCloseSession}). The command line for it is {@code io.github.mongolock.admin.LockAdminCommand}.
 *
 * <pre>{@code
 * LockAdmin admin = new LockAdmin(client.getDatabase("app"), "locks", Duration.ofSeconds(10), "alice@ops-1");
 * admin.list("invoice-", 50).forEach(System.out::println);
 * LockState seen = admin.inspect("invoice-run").orElseThrow();
 * admin.forceRelease(seen, "import wedged since 02:10, ticket OPS-4711");
 * }</pre>
 *
 * <p><b>A forced release is fenced.</b> It is one compare-and-set on {@code {_id, owner, version}} as read, that
 * frees the lock ({@code owner: null, holds: 0, version + 1}) and records {@code revokedOwner}, {@code revokedBy},
 * {@code revokedAt} and {@code revokedReason}. If the lock moved since it was read (released, re-entered, taken
 * over) nothing changes and {@link ForceReleaseRefusedException} says so. The old holder's next renewal (within a
 * third of its lease) misses, its check read finds the revocation, and the holder is told as of any lost lease
 * ({@code isHeld()} false, {@code LEASE_LOST}, its {@code onLeaseLost} actions, {@code LockLostException} from
 * {@code close()}) with the operator's reason. Until then it may still believe it holds the lock: the next holder
 * gets a greater fencing token, so its {@link FencedCollection} writes make the old holder's later ones fail.
 *
 * <p><b>Semaphores</b> ({@code LockManager.permits}) have their own three: {@link #listPermits}, {@link #inspectPermits}
 * and {@link #forceReleasePermits}, which takes back the permits of one holder (a semaphore has many) by a
 * compare-and-set pinned to the version read, and tells that holder's session the same way ({@link PermitAdmin}).
 *
 * <p>Reads and writes use the lock store's concerns and timeout ({@link MongoLockStore#collection()}); every
 * forced release, and every refused one, is logged at INFO with the lock, the old owner, the operator and the
 * reason. Thread-safe.
 */
public final class LockAdmin {

    private static final System.Logger LOG = System.getLogger(LockAdmin.class.getName());
    /** The most locks one {@link #list} call returns. */
    public static final int MAX_LIMIT = 10_000;

    private static final FindOneAndUpdateOptions BEFORE =
            new FindOneAndUpdateOptions().returnDocument(ReturnDocument.BEFORE);

    private final MongoCollection<Document> locks;
    private final StoreCalls calls;
    private final String operator;
    private final PermitAdmin permits;

    /**
     * @param database   the lock collection's database
     * @param collection the lock collection ({@code MongoLockManager.DEFAULT_COLLECTION} unless configured)
     * @param timeout    bounds every call, as {@link MongoLockStore}'s
     * @param operator   who acts, recorded as {@code revokedBy}; e.g. {@link #defaultOperator()}
     */
    public LockAdmin(MongoDatabase database, String collection, Duration timeout, String operator) {
        this(database.getCollection(collection), timeout, operator, database, null);
    }

    /** An admin that takes {@code server} as what it talks to, without asking (tests). */
    LockAdmin(MongoCollection<Document> collection, Duration timeout, String operator, ServerProfile server) {
        this(collection, timeout, operator, null, Objects.requireNonNull(server, "server"));
    }

    private LockAdmin(MongoCollection<Document> collection, Duration timeout, String operator, MongoDatabase database,
                      ServerProfile server) {
        // The store's concerns and timeout, and its translation of failures: an operator's view and write are as
        // exact as the holders' own.
        this.locks = new MongoLockStore(collection, timeout).collection();
        this.calls = new StoreCalls(locks.getNamespace().getFullName(), LockMetrics.NONE,
                database == null ? null : database.withTimeout(Math.max(timeout.toMillis(), 1), TimeUnit.MILLISECONDS), server);
        this.operator = requireText(operator, "operator");
        this.permits = new PermitAdmin(locks, calls, this.operator, this::tellSession);
    }

    /** The operating system's user name at this host ({@code user@host}): who acts, when nobody says. */
    public static String defaultOperator() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException unknown) {
            host = "unknown-host";
        }
        return System.getProperty("user.name", "unknown-user") + "@" + host;
    }

    /**
     * The locks that are held or have managers queued, in name order, at most {@code limit}.
     *
     * @param namePrefix only names starting with it; "" for all
     * @param limit      1 to {@value #MAX_LIMIT}
     */
    public List<LockState> list(String namePrefix, int limit) {
        Objects.requireNonNull(namePrefix, "namePrefix");
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new LockConfigurationException("limit = " + limit + " is not valid: list between 1 and " + MAX_LIMIT
                    + " locks at a time; narrow the list with a name prefix.");
        }
        // Locks only: a semaphore (a document _id) with managers queued has a queue head too.
        Bson busy = and(type(ID, BsonType.STRING), or(gt(HOLDS, 0), exists(QUEUE_HEAD, true)));
        Bson filter = namePrefix.isEmpty() ? busy : and(regex(ID, "^" + literal(namePrefix)), busy);
        List<Document> documents = read("list", namePrefix + "*", filter, limit);
        Map<String, Document> sessions = sessionsOf(documents);
        List<LockState> states = new ArrayList<>(documents.size());
        documents.forEach(document -> states.add(stateOf(document, sessions)));
        return states;
    }

    /** The lock's document as it is now, held or free; empty when the name was never used. */
    public Optional<LockState> inspect(String name) {
        LockArguments.checkName(name);
        List<Document> documents = read("inspect", name, eq(ID, name), 1);
        Map<String, Document> sessions = sessionsOf(documents);
        return documents.stream().findFirst().map(document -> stateOf(document, sessions));
    }

    /**
     * Frees the lock {@code seen} shows held, if it is still exactly that holder at that version.
     *
     * @param reason why, for the old holder (its {@code LockLostException}) and for people reading the document
     * @throws ForceReleaseRefusedException when {@code seen} shows it free, or it changed since (nothing changed)
     */
    public ForcedRelease forceRelease(LockState seen, String reason) {
        if (!seen.held()) {
            throw refused(seen.name(), "it is free: nobody holds it", seen);
        }
        return forceRelease(seen.name(), seen.owner(), seen.version(), reason);
    }

    /** Reads the lock and frees it from the holder read: {@link #forceRelease(LockState, String)} on {@link #inspect}. */
    public ForcedRelease forceRelease(String name, String reason) {
        LockState seen = inspect(name).orElseThrow(() -> new ForceReleaseRefusedException(name, "Lock \"" + name
                + "\" was not released: there is no such lock in " + locks.getNamespace().getFullName() + ". Nothing was changed;"
                + " check the name (list shows the held ones) and the collection."));
        return forceRelease(seen, reason);
    }

    /**
     * Frees {@code name} if {@code owner} holds it at {@code version}: the operator's compare-and-set, recording who
     * and why. The version is the one read, so a lock re-entered, released or taken over since is left alone.
     *
     * @throws ForceReleaseRefusedException when the lock is not {@code owner}'s at {@code version} (nothing changed)
     */
    public ForcedRelease forceRelease(String name, String owner, long version, String reason) {
        requireText(reason, "reason");
        Objects.requireNonNull(owner, "owner");
        Bson update = combine(set(OWNER, null), set(HOLDS, 0), inc(VERSION, 1L), unset(SESSION), set(REVOKED_OWNER, owner),
                set(REVOKED_BY, operator), set(REVOKED_REASON, reason), currentDate(REVOKED_AT));
        // The BEFORE image is this write's own input: exactly the holder it freed, however it moved before.
        Document freed = calls.call("force the release of", name, () -> locks.findOneAndUpdate(
                and(eq(ID, name), eq(OWNER, owner), eq(VERSION, version)), update, BEFORE));
        if (freed == null) {
            LockState now = inspect(name).orElse(null);
            throw refused(name, "it is not held by " + owner + " at version " + version + " any more", now);
        }
        boolean sessionTold = !HeldBySession.isHeldBySession(freed) || tellSession(name, freed.getString(SESSION));
        LockState before = stateOf(freed, Map.of());
        LOG.log(Level.INFO, "mongolock: operator " + operator + " released lock \"" + name + "\" held by " + owner
                + " (token " + before.fencingToken() + ", " + before.holds() + " hold(s)): " + reason
                + (sessionTold ? ". The holder is told at its next renewal" : ". The holder's session could not be told: the"
                        + " holder learns it at its session's periodic check (every " + PERIODIC_CHECK + ")")
                + "; the next grant gets a token greater than " + before.fencingToken() + ".");
        return new ForcedRelease(before, operator, reason, sessionTold);
    }

    /**
     * The semaphores that have permits held or managers queued, in name order, at most {@code limit}; each with its
     * holders (owner, session, permits) and the state and lease of each holder's session.
     *
     * @param namePrefix only names starting with it; "" for all
     * @param limit      1 to {@value #MAX_LIMIT}
     */
    public List<PermitsState> listPermits(String namePrefix, int limit) {
        Objects.requireNonNull(namePrefix, "namePrefix");
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new LockConfigurationException("limit = " + limit + " is not valid: list between 1 and " + MAX_LIMIT
                    + " semaphores at a time; narrow the list with a name prefix.");
        }
        return permits.list(namePrefix, limit);
    }

    /** The semaphore's document as it is now, in use or not; empty when the name was never used for permits. */
    public Optional<PermitsState> inspectPermits(String name) {
        return permits.inspect(name);
    }

    /**
     * Takes back the permits {@code owner} holds of the semaphore {@code name} (see {@link PermitAdmin}): a
     * compare-and-set pinned to the version read and to that holder's entry, then the holder's session is told; its
     * next renewal reports the permits lost ({@code isHeld()} false, {@code onLeaseLost}, {@code LockLostException}
     * from {@code close()}). The permits are free for others at once.
     *
     * @param reason why, recorded in the semaphore's document ({@code revokedReason})
     * @throws ForceReleaseRefusedException when there is no such semaphore (the message names those there are), or
     *                                      {@code owner} holds none of its permits (it names the holders there are);
     *                                      nothing changed
     */
    public ForcedPermitRelease forceReleasePermits(String name, String owner, String reason) {
        return permits.forceRelease(name, owner, reason);
    }

    /** Read-write locks ({@code LockManager.readWriteLock}): list, inspect, take back one holder's access. */
    public ReadWriteAdmin readWriteLocks() {
        return new ReadWriteAdmin(new PermitAdmin(locks, calls, operator, this::tellSession, PermitAdmin.READ_WRITE_LOCKS));
    }

    /** How many times the holder's session is told of a forced release before giving up. */
    static final int SIGNAL_ATTEMPTS = 3;
    private static final String PERIODIC_CHECK = "60 renewals, about 20 leases";

    /**
     * Tells the holder's manager that one of its session's locks was released: its next renewal sees the session's
     * {@code checks} move and checks its locks, and the holder's {@code isHeld()} turns false. Until then the old
     * holder still believes it holds the lock: a forced release is an operator's override. So the signal is tried
     * {@value #SIGNAL_ATTEMPTS} times (an {@code $inc} applied twice only costs one check more).
     *
     * @return false when no attempt reached MongoDB (logged): the holder then learns it at its periodic check
     */
    private boolean tellSession(String name, String session) {
        LockStoreException last = null;
        for (int attempt = 1; attempt <= SIGNAL_ATTEMPTS; attempt++) {
            try {
                calls.call("tell the session of", name, () -> locks.updateOne(eq(ID, sessionId(session)), inc(CHECKS, 1L)));
                return true;
            } catch (LockStoreException unreachable) {
                last = unreachable;
                try {
                    Thread.sleep(100L * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        LOG.log(Level.WARNING, "mongolock: lock \"" + name + "\" was released, but its holder's session " + session
                + " could not be told (" + (last == null ? "interrupted" : last.getMessage()) + "); the holder may still"
                + " believe it holds the lock until its session's periodic check (every " + PERIODIC_CHECK + ")"
                + " or its session ends. Fenced writes are safe: the next grant's token is greater.");
        return false;
    }

    private ForceReleaseRefusedException refused(String name, String why, LockState now) {
        String state = now == null ? "there is no such lock"
                : now.held() ? "it is held by " + now.owner() + " at version " + now.version() + " (token " + now.fencingToken() + ")"
                : "it is free (version " + now.version() + ")";
        LOG.log(Level.INFO, "mongolock: operator " + operator + " was refused the release of lock \"" + name + "\": " + why
                + "; " + state);
        return new ForceReleaseRefusedException(name, "Lock \"" + name + "\" was not released: " + why + "; now " + state
                + ". Nothing was changed. Inspect it again and, if the holder shown is the one to free, release that one.");
    }

    /**
     * The matching documents in name order with the database's time as {@value LockDocument#SERVER_NOW}; where the
     * server refuses {@code $$NOW} in an aggregation, without it (the time since the last renewal is then unknown).
     */
    private List<Document> read(String operation, String name, Bson filter, int limit) {
        try {
            return calls.call(operation, name, () -> locks.aggregate(List.of(Aggregates.match(filter),
                    Aggregates.sort(Sorts.ascending(ID)), Aggregates.limit(limit),
                    Aggregates.addFields(new Field<>(SERVER_NOW, "$$NOW")))).into(new ArrayList<>()));
        } catch (LockStoreException failure) {
            if (!(failure.getCause() instanceof MongoCommandException)) {
                throw failure;
            }
            return calls.call(operation, name, () -> locks.find(filter).sort(Sorts.ascending(ID)).limit(limit)
                    .into(new ArrayList<>()));
        }
    }

    /**
     * The session documents of the session locks among {@code documents}, by session id: one read. A session lock's
     * lease and last renewal are its session's (the lock document's own {@code leaseMs} is for earlier versions).
     */
    private Map<String, Document> sessionsOf(List<Document> documents) {
        List<Document> ids = new ArrayList<>();
        for (Document document : documents) {
            if (HeldBySession.isHeldBySession(document)) {
                ids.add(sessionId(document.getString(SESSION)));
            }
        }
        if (ids.isEmpty()) {
            return Map.of();
        }
        Map<String, Document> sessions = new HashMap<>();
        calls.call("inspect the sessions of", ids.size() + " lock(s)", () -> locks.find(in(ID, ids)).into(new ArrayList<>()))
                .forEach(session -> sessions.put(LockDocument.sessionOf(session.get(ID)), session));
        return sessions;
    }

    private static LockState stateOf(Document document, Map<String, Document> sessions) {
        String owner = document.getString(OWNER);
        int holds = (int) number(document, HOLDS);
        // A session left on a lock of the previous version (renewed by its holder) says nothing of that lock's lease.
        Document session = HeldBySession.isHeldBySession(document) ? sessions.get(document.getString(SESSION)) : null;
        Instant renewedAt = instant(session != null ? session : document, RENEWED_AT);
        Date now = serverNow(document);
        Duration sinceRenewal = now == null || renewedAt == null ? null : Duration.between(renewedAt, now.toInstant());
        LockState.Revocation revocation = document.get(REVOKED_OWNER) instanceof String revoked
                ? new LockState.Revocation(revoked, document.getString(REVOKED_BY), instant(document, REVOKED_AT),
                        document.getString(REVOKED_REASON))
                : null;
        List<String> queue = queue(document).stream().map(String::valueOf).toList();
        return new LockState(document.getString(ID), holds > 0 ? owner : null, holds, number(document, VERSION),
                number(document, TOKEN), Duration.ofMillis(number(session != null ? session : document, LEASE_MS)),
                instant(document, ACQUIRED_AT),
                renewedAt, sinceRenewal, queue, holds > 0 && document.get(RELEASED_AT) != null, revocation);
    }

    private static Instant instant(Document document, String field) {
        return document.get(field) instanceof Date date ? date.toInstant() : null;
    }

    /** {@code text} as a regular expression matching it literally: every character that is not a letter or digit escaped. */
    static String literal(String text) {
        StringBuilder escaped = new StringBuilder(text.length() * 2);
        text.codePoints().forEach(c -> {
            if (!Character.isLetterOrDigit(c)) {
                escaped.append('\\');
            }
            escaped.appendCodePoint(c);
        });
        return escaped.toString();
    }

    static String requireText(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new LockConfigurationException("The " + what + " of a forced release is " + (value == null ? "missing" : "blank")
                    + ": say who acts and why, for the holder's LockLostException and for people reading the lock.");
        }
        return value;
    }
}
