package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.elemMatch;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;
import static com.mongodb.client.model.Filters.gt;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Filters.or;
import static com.mongodb.client.model.Filters.regex;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.pull;
import static com.mongodb.client.model.Updates.set;
import static io.github.mongolock.mongo.LockDocument.ID;
import static io.github.mongolock.mongo.LockDocument.LEASE_MS;
import static io.github.mongolock.mongo.LockDocument.LIVE;
import static io.github.mongolock.mongo.LockDocument.OWNER;
import static io.github.mongolock.mongo.LockDocument.QUEUE_HEAD;
import static io.github.mongolock.mongo.LockDocument.RENEWED_AT;
import static io.github.mongolock.mongo.LockDocument.REVOKED_AT;
import static io.github.mongolock.mongo.LockDocument.REVOKED_BY;
import static io.github.mongolock.mongo.LockDocument.REVOKED_OWNER;
import static io.github.mongolock.mongo.LockDocument.REVOKED_REASON;
import static io.github.mongolock.mongo.LockDocument.SERVER_NOW;
import static io.github.mongolock.mongo.LockDocument.SESSION;
import static io.github.mongolock.mongo.LockDocument.STATE;
import static io.github.mongolock.mongo.LockDocument.TOKEN;
import static io.github.mongolock.mongo.LockDocument.VERSION;
import static io.github.mongolock.mongo.LockDocument.number;
import static io.github.mongolock.mongo.LockDocument.sessionId;
import static io.github.mongolock.mongo.LockDocument.sessionOf;
import static io.github.mongolock.mongo.PermitDocuments.HOLDERS;
import static io.github.mongolock.mongo.PermitDocuments.KIND;
import static io.github.mongolock.mongo.PermitDocuments.LIMIT;
import static io.github.mongolock.mongo.PermitDocuments.PERMITS;
import static io.github.mongolock.mongo.PermitDocuments.USED;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Field;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Sorts;
import io.github.mongolock.ForceReleaseRefusedException;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.core.LockArguments;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * {@link LockAdmin}'s semaphores (and, as {@link #READ_WRITE_LOCKS}, read-write locks, whose holders are entries of the same
 * shape): list them with their holders, inspect one, and take back the permits of one holder
 * that is alive but wedged. The take-back is one compare-and-set pinned to the semaphore's {@code version} as read
 * and to the holder's entry ({@code {_id, version, holders: {$elemMatch: {owner, permits}}}}), pulling that entry
 * ({@code used - permits}, {@code version + 1}) and recording {@code revokedOwner}, {@code revokedBy},
 * {@code revokedAt} and {@code revokedReason}; then the holder's session is told as for a lock
 * ({@code checks + 1}), so its next renewal checks its permits, does not find them and reports them lost. A
 * semaphore's version moves on every grant and release of any holder, so a pull that missed is read and tried again
 * (at most {@value #PULL_TRIES} times) while the same holder still holds the same permits. Thread-safe.
 */
final class PermitAdmin {

    private static final System.Logger LOG = System.getLogger(PermitAdmin.class.getName());
    /** Pulls tried while other holders move the semaphore's version. */
    static final int PULL_TRIES = 5;
    /** Semaphore names shown when the one asked for does not exist. */
    private static final int NAMES_SHOWN = 20;
    private static final FindOneAndUpdateOptions BEFORE = new FindOneAndUpdateOptions().returnDocument(ReturnDocument.BEFORE);
    private static final String NAME = ID + ".name";

    /**
     * Which documents an admin works on: semaphores ({@link #SEMAPHORES}) or read-write locks ({@link #READ_WRITE_LOCKS}),
     * with the words its messages use.
     *
     * @param kind    the documents' {@code _id.mongolock}
     * @param noun    what one is called in messages
     * @param inspect the command line's command that shows one's holders
     */
    record Kind(String kind, String noun, String inspect) {
    }

    static final Kind SEMAPHORES = new Kind(KIND, "semaphore", "inspect-permits");
    static final Kind READ_WRITE_LOCKS = new Kind(ReadWriteDocuments.RW_KIND, "read-write lock", "inspect-rw");

    /** Tells a holder's session that something it holds was released (LockAdmin's signal, tried a few times). */
    interface SessionSignal {
        boolean tell(String name, String session);
    }

    private final MongoCollection<Document> locks;
    private final StoreCalls calls;
    private final String operator;
    private final SessionSignal signal;
    private final Kind kind;

    PermitAdmin(MongoCollection<Document> locks, StoreCalls calls, String operator, SessionSignal signal) {
        this(locks, calls, operator, signal, SEMAPHORES);
    }

    PermitAdmin(MongoCollection<Document> locks, StoreCalls calls, String operator, SessionSignal signal, Kind kind) {
        this.kind = kind;
        this.locks = locks;
        this.calls = calls;
        this.operator = operator;
        this.signal = signal;
    }

    List<PermitsState> list(String namePrefix, int limit) {
        Bson inUse = and(eq(ID + ".mongolock", kind.kind()), or(gt(USED, 0), exists(QUEUE_HEAD, true)));
        Bson filter = namePrefix.isEmpty() ? inUse : and(inUse, regex(NAME, "^" + LockAdmin.literal(namePrefix)));
        List<Document> documents = calls.call("list " + kind.noun() + "s", namePrefix + "*", () -> locks.find(filter)
                .sort(Sorts.ascending(NAME)).limit(limit).into(new ArrayList<>()));
        Map<String, Document> sessions = sessionsOf(documents);
        return documents.stream().map(document -> stateOf(document, sessions)).toList();
    }

    Optional<PermitsState> inspect(String name) {
        LockArguments.checkName(name);
        Document found = calls.call("inspect " + kind.noun(), name, () -> locks.find(eq(ID, idOf(name))).first());
        if (found == null) {
            return Optional.empty();
        }
        return Optional.of(stateOf(found, sessionsOf(List.of(found))));
    }

    ForcedPermitRelease forceRelease(String name, String owner, String reason) {
        LockAdmin.requireText(reason, "reason");
        if (owner == null || owner.isBlank()) {
            throw new LockConfigurationException("No owner given for the forced release of permits of " + kind.noun()
                    + " " + LockArguments.quote(name) + ": name the holder whose permits to release (" + kind.inspect()
                    + " shows them).");
        }
        for (int attempt = 0; attempt < PULL_TRIES; attempt++) {
            PermitsState seen = inspect(name).orElseThrow(() -> refused(name, owner, "there is no " + kind.noun() + " named "
                    + LockArguments.quote(name) + " in " + locks.getNamespace().getFullName() + "; the " + kind.noun()
                    + "s there are " + semaphoreNames() + ". Check the name (list shows those in use) and the collection"));
            PermitsState.Holder holder = seen.holders().stream().filter(held -> held.owner().equals(owner)).findFirst()
                    .orElseThrow(() -> refused(name, owner, owner + " holds none of its permits (released, or taken back"
                            + " since); its holders now are " + holders(seen) + ". Inspect it again and release one of those"));
            Bson update = combine(pull(HOLDERS, new Document(OWNER, owner)), inc(USED, -holder.permits()), inc(VERSION, 1L),
                    set(REVOKED_OWNER, owner), set(REVOKED_BY, operator), set(REVOKED_REASON, reason), currentDate(REVOKED_AT),
                    currentDate(LockDocument.RELEASED_AT)); // wakes waiters through the push feed, as a release does
            Document pulled = calls.call("force the release of permits of", name, () -> locks.findOneAndUpdate(
                    and(eq(ID, idOf(name)), eq(VERSION, seen.version()),
                            elemMatch(HOLDERS, and(eq(OWNER, owner), eq(PERMITS, holder.permits())))), update, BEFORE));
            if (pulled != null) {
                boolean told = signal.tell(name, holder.session());
                LOG.log(Level.INFO, "mongolock: operator " + operator + " released " + holder.permits() + " permit(s) of "
                        + kind.noun() + " " + LockArguments.quote(name) + " held by " + owner + ": " + reason
                        + (told ? ". The holder is told at its next renewal" : ". The holder's session could not be told:"
                                + " the holder learns it at its session's periodic check") + ".");
                return new ForcedPermitRelease(seen, holder, operator, reason, told);
            }
            // Another holder moved the version since the read: read again, and pull if the holder is still there.
        }
        throw refused(name, owner, "the " + kind.noun() + " changed between each of " + PULL_TRIES + " reads and pulls (other"
                + " holders acquire and release it); try again");
    }

    private ForceReleaseRefusedException refused(String name, String owner, String why) {
        LOG.log(Level.INFO, "mongolock: operator " + operator + " was refused the release of the permits of " + owner
                + " of " + kind.noun() + " " + LockArguments.quote(name) + ": " + why);
        return new ForceReleaseRefusedException(name, "The permits of " + owner + " of " + kind.noun() + " " + LockArguments.quote(name)
                + " were not released: " + why + ". Nothing was changed.");
    }

    private Document idOf(String name) {
        return new Document("mongolock", kind.kind()).append("name", name);
    }

    private static String holders(PermitsState state) {
        return state.holders().isEmpty() ? "none" : state.holders().stream()
                .map(holder -> holder.owner() + " (" + holder.permits() + " permit(s))").collect(Collectors.joining(", "));
    }

    /** The names of the semaphores in the collection, in use or not: at most {@value #NAMES_SHOWN}. */
    private String semaphoreNames() {
        List<String> names = new ArrayList<>();
        calls.call("list " + kind.noun() + "s", "*", () -> locks.find(eq(ID + ".mongolock", kind.kind())).projection(Projections.include(ID))
                .sort(Sorts.ascending(NAME)).limit(NAMES_SHOWN + 1).into(new ArrayList<>())).forEach(document -> {
                    if (document.get(ID) instanceof Document id && id.get("name") instanceof String name) {
                        names.add(LockArguments.quote(name));
                    }
                });
        if (names.isEmpty()) {
            return "none";
        }
        return names.size() > NAMES_SHOWN ? String.join(", ", names.subList(0, NAMES_SHOWN)) + ", ..." : String.join(", ", names);
    }

    /** The holders' session documents by session id, with the database's time: one read. */
    private Map<String, Document> sessionsOf(List<Document> documents) {
        Set<Document> ids = new LinkedHashSet<>();
        documents.forEach(document -> entries(document).forEach(entry -> {
            if (entry.get(SESSION) instanceof String session) {
                ids.add(sessionId(session));
            }
        }));
        if (ids.isEmpty()) {
            return Map.of();
        }
        Bson filter = in(ID, ids);
        List<Document> found;
        try {
            found = calls.call("inspect the sessions of", ids.size() + " holder(s)", () -> locks.aggregate(List.of(
                    Aggregates.match(filter), Aggregates.addFields(new Field<>(SERVER_NOW, "$$NOW")))).into(new ArrayList<>()));
        } catch (LockStoreException failure) {
            if (!(failure.getCause() instanceof MongoCommandException)) {
                throw failure;
            }
            found = calls.call("inspect the sessions of", ids.size() + " holder(s)", () -> locks.find(filter).into(new ArrayList<>()));
        }
        Map<String, Document> sessions = new HashMap<>();
        found.forEach(session -> sessions.put(sessionOf(session.get(ID)), session));
        return sessions;
    }

    private static PermitsState stateOf(Document document, Map<String, Document> sessions) {
        String name = document.get(ID) instanceof Document id ? String.valueOf(id.get("name")) : String.valueOf(document.get(ID));
        List<PermitsState.Holder> holders = new ArrayList<>();
        for (Document entry : entries(document)) {
            if (entry.get(OWNER) instanceof String owner && entry.get(SESSION) instanceof String session) {
                holders.add(holder(owner, session, (int) number(entry, PERMITS), sessions.get(session)));
            }
        }
        LockState.Revocation revocation = document.get(REVOKED_OWNER) instanceof String revoked
                ? new LockState.Revocation(revoked, document.getString(REVOKED_BY), instant(document, REVOKED_AT),
                        document.getString(REVOKED_REASON))
                : null;
        List<String> queue = LockDocument.queue(document).stream().map(String::valueOf).toList();
        return new PermitsState(name, (int) number(document, LIMIT), (int) number(document, USED), number(document, VERSION),
                number(document, TOKEN), holders, queue, revocation);
    }

    private static PermitsState.Holder holder(String owner, String session, int permits, Document stored) {
        if (stored == null) {
            return new PermitsState.Holder(owner, session, permits, "missing", null, null);
        }
        if (!LIVE.equals(stored.get(STATE))) {
            return new PermitsState.Holder(owner, session, permits, String.valueOf(stored.get(STATE)), null, null);
        }
        Instant renewedAt = instant(stored, RENEWED_AT);
        Date now = LockDocument.serverNow(stored);
        Duration sinceRenewal = now == null || renewedAt == null ? null : Duration.between(renewedAt, now.toInstant());
        return new PermitsState.Holder(owner, session, permits, LIVE, Duration.ofMillis(number(stored, LEASE_MS)), sinceRenewal);
    }

    private static List<Document> entries(Document document) {
        List<Document> entries = new ArrayList<>();
        if (document.get(HOLDERS) instanceof List<?> list) {
            list.forEach(entry -> {
                if (entry instanceof Document hold) {
                    entries.add(hold);
                }
            });
        }
        return entries;
    }

    private static Instant instant(Document document, String field) {
        return document.get(field) instanceof Date date ? date.toInstant() : null;
    }
}
