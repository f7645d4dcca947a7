package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;
import static com.mongodb.client.model.Filters.gt;
import static com.mongodb.client.model.Filters.gte;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Filters.lt;
import static com.mongodb.client.model.Filters.lte;
import static com.mongodb.client.model.Filters.or;
import static com.mongodb.client.model.Filters.size;
import static com.mongodb.client.model.Filters.type;
import static com.mongodb.client.model.Projections.include;
import static io.github.mongolock.mongo.LockDocument.CLEAN_UP_BY;
import static io.github.mongolock.mongo.LockDocument.CLEAN_UP_DUE_AT;
import static io.github.mongolock.mongo.LockDocument.COLLECTION_STATE_ID;
import static io.github.mongolock.mongo.LockDocument.FREED_AT;
import static io.github.mongolock.mongo.LockDocument.HOLDS;
import static io.github.mongolock.mongo.LockDocument.ID;
import static io.github.mongolock.mongo.LockDocument.QUEUE;
import static io.github.mongolock.mongo.LockDocument.RENEWED_AT;
import static io.github.mongolock.mongo.LockDocument.SESSION;
import static io.github.mongolock.mongo.LockDocument.TOKEN;
import static io.github.mongolock.mongo.LockDocument.number;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.Updates;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockStoreException;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.bson.BsonType;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * Removes lock documents left free for longer than an age, so that names used once (a lock per business
 * record, {@code @Locked("account-{0}")}) do not pile up, without letting any name's fencing tokens go
 * back: before removing documents it raises the collection's token floor to their highest token, and a
 * name created again starts above it (see {@link TokenFloor}).
 *
 * <p>Each removal is conditional on what made the document a candidate: free ({@code holds: 0}), nobody
 * queued, freed before the cutoff, and a token no higher than the floor just raised. A lock acquired,
 * queued for or released since the read is left alone, so several managers may clean up at once. A run
 * costs three commands (one when nothing is idle): one read of at most {@code limit} candidates, the first
 * by name, one write of the floor, one delete of that range of names. Which documents count as idle is judged by
 * this machine's wall clock against the database's {@code freedAt}: a clock that is off removes a free
 * document early or late, never a held one, and never makes a token go back.
 *
 * <p>Sessions too: {@link #removeEndedSessions} frees the locks still held under sessions ended long ago, then
 * removes them. It never ends a live session: a clock may not decide that a session is dead (a waiter's watch on
 * its own monotonic clock does), since ending a live session lets waiters take its locks at once.
 *
 * <p>{@link #claimRun} makes the clean-up happen once per interval across all managers on the collection.
 * Thread-safe.
 */
public final class IdleLockCleaner {

    /** How many documents one run removes at most, unless told otherwise. */
    public static final int DEFAULT_LIMIT = 1_000;
    /** How many full runs one scheduled interval makes at most: 10,000 documents. */
    public static final int BATCHES_PER_INTERVAL = 10;
    private static final Duration FIRST_RUN_WITHIN = Duration.ofMinutes(5);
    private static final System.Logger LOG = System.getLogger(IdleLockCleaner.class.getName());

    private static final FindOneAndUpdateOptions CLAIM = new FindOneAndUpdateOptions().upsert(true);

    private final MongoCollection<Document> locks;
    private final StoreCalls calls;
    private final TokenFloor floor;
    private final Clock clock;

    /** A cleaner of the store's collection, with the store's concerns, timeout and failure reports. */
    public IdleLockCleaner(MongoLockStore store) {
        this(store, Clock.systemUTC());
    }

    IdleLockCleaner(MongoLockStore store, Clock clock) {
        this.locks = store.collection();
        this.calls = store.calls();
        this.floor = new TokenFloor(locks, calls);
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * What one run did.
     *
     * @param examined   candidates read (at most the limit)
     * @param removed    documents removed (fewer when some changed since they were read)
     * @param floorRaisedTo the token the collection's floor was raised to (the highest among the candidates;
     *                      the floor may be higher still), 0 when there were none
     */
    public record Run(int examined, long removed, long floorRaisedTo) {
    }

    /** The background clean-up started by {@link #scheduleEvery}; closing it stops it. */
    public interface Schedule extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Removes at most {@code limit} lock documents free for at least {@code freeFor}.
     *
     * @throws LockConfigurationException when {@code freeFor} is negative or {@code limit} is not 1 to 100,000
     * @throws LockStoreException         when MongoDB cannot be reached; nothing is lost (the floor is raised
     *                                    before anything is removed)
     */
    public Run removeIdle(Duration freeFor, int limit) {
        if (freeFor == null || freeFor.isNegative()) {
            throw new LockConfigurationException("Idle lock age " + freeFor + " is negative: give PT0S or more.");
        }
        if (limit < 1 || limit > 100_000) {
            throw new LockConfigurationException("Idle clean-up limit " + limit + " is outside 1 to 100000.");
        }
        Date cutoff = Date.from(Instant.now(clock).minus(freeFor));
        // Lock documents only (string _id), free, nobody queued, freed before the cutoff; documents written
        // before freedAt existed count from their last renewal.
        Bson idle = and(type(ID, BsonType.STRING), eq(HOLDS, 0), or(exists(QUEUE, false), size(QUEUE, 0)),
                or(lt(FREED_AT, cutoff), and(exists(FREED_AT, false), lt(RENEWED_AT, cutoff))));
        // The first ones by name: the removal below then covers a range of names, which MongoDB walks in the
        // _id index, so a run costs about its limit whatever the collection's size.
        List<Document> candidates = calls.call("find idle", "(idle clean-up)", () -> locks.find(idle)
                .sort(Sorts.ascending(ID)).projection(include(ID, TOKEN)).limit(limit).into(new ArrayList<>()));
        if (candidates.isEmpty()) {
            return new Run(0, 0, 0);
        }
        long highest = 0;
        for (Document candidate : candidates) {
            highest = Math.max(highest, number(candidate, TOKEN));
        }
        long raisedTo = highest;
        floor.raise(raisedTo);
        Object first = candidates.get(0).get(ID);
        Object last = candidates.get(candidates.size() - 1).get(ID);
        // Removed only if still idle and its token is covered by the floor just raised: a lock acquired and
        // released since the read has a new freedAt, or a token above the floor, and stays. A document of the
        // range that became idle meanwhile may go too: it is idle, and its token is covered.
        long removed = calls.call("remove idle", "(idle clean-up)", () -> locks.deleteMany(
                and(gte(ID, first), lte(ID, last), idle, lte(TOKEN, raisedTo)))).getDeletedCount();
        return new Run(candidates.size(), removed, raisedTo);
    }

    /**
     * Removes the session documents that ended at least {@code endedFor} ago (by the database's clock, as
     * {@code endedAt} records it), at most {@code limit} per call, after freeing the locks still held under them.
     * A waiter that ends a session takes only the lock it waits for; the session's other locks stay held under the
     * ended session until someone asks for them (then they are taken at once), and a name nobody asks for again
     * would stay held for ever. Freeing them here is safe: an ended session never becomes live again, and every
     * take and free names the session, so no holder believes such a lock. (It is a multi-document update, which a
     * chunk migration of a sharded collection can make miss a document: that lock then reads as held by an ended
     * session, taken at once by whoever asks, as before.) Live sessions are never removed here.
     *
     * @return how many session documents were removed
     */
    public long removeEndedSessions(Duration endedFor, int limit) {
        Date cutoff = Date.from(Instant.now(clock).minus(endedFor));
        Bson endedLongAgo = and(eq(ID + ".mongolock", "session"), eq(LockDocument.STATE, LockDocument.ENDED),
                lt(LockDocument.ENDED_AT, cutoff));
        List<Object> ids = new ArrayList<>();
        calls.call("find ended", StoreCalls.SESSION_SUBJECT + "documents", () -> locks.find(endedLongAgo)
                .projection(include(ID)).limit(limit).into(new ArrayList<>())).forEach(session -> ids.add(session.get(ID)));
        if (ids.isEmpty()) {
            return 0;
        }
        List<String> sessions = new ArrayList<>(ids.size());
        for (Object id : ids) {
            String session = LockDocument.sessionOf(id);
            if (session != null) {
                sessions.add(session);
            }
        }
        calls.call("free the locks of ended", StoreCalls.SESSION_SUBJECT + "documents", () -> locks.updateMany(
                HeldBySession.heldUnder(sessions), LockWrites.free()));
        return calls.call("remove ended", StoreCalls.SESSION_SUBJECT + "documents", () -> locks.deleteMany(
                and(in(ID, ids), endedLongAgo))).getDeletedCount();
    }

    /**
     * Runs the clean-up in the background: every {@code every} (the first time after once to twice
     * min({@code every}, 5 minutes), at random, so that managers started together do not all ask at once), the manager that {@linkplain #claimRun claims}
     * the interval removes documents free for {@code freeFor}, {@value #DEFAULT_LIMIT} per run, up to
     * {@value #BATCHES_PER_INTERVAL} runs while runs come back full. One daemon thread; closing the handle
     * stops it. Failures are logged and retried at the next interval.
     */
    public Schedule scheduleEvery(Duration every, Duration freeFor, String by) {
        if (every == null || every.isNegative() || every.isZero()) {
            throw new LockConfigurationException("Idle clean-up interval " + every + " must be positive, e.g. PT1H.");
        }
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "mongolock-idle-locks-" + by);
            thread.setDaemon(true);
            return thread;
        });
        long everyMillis = Math.max(1, every.toMillis());
        // Not at start-up (a short-lived manager, a test, costs nothing), and spread over a while.
        long settleMillis = Math.min(everyMillis, FIRST_RUN_WITHIN.toMillis());
        long firstMillis = settleMillis + ThreadLocalRandom.current().nextLong(settleMillis + 1);
        scheduler.scheduleWithFixedDelay(() -> sweep(every, freeFor, by), firstMillis, everyMillis, TimeUnit.MILLISECONDS);
        return scheduler::shutdownNow;
    }

    private void sweep(Duration every, Duration freeFor, String by) {
        try {
            if (!claimRun(every, by)) {
                return;
            }
            long removed = 0;
            long floorRaisedTo = 0;
            for (int batch = 0; batch < BATCHES_PER_INTERVAL; batch++) {
                Run run = removeIdle(freeFor, DEFAULT_LIMIT);
                removed += run.removed();
                floorRaisedTo = Math.max(floorRaisedTo, run.floorRaisedTo());
                if (run.examined() < DEFAULT_LIMIT) {
                    break;
                }
            }
            if (removed > 0) {
                LOG.log(Level.INFO, "mongolock removed {0} lock document(s) free for over {1} from {2}; token floor at least {3}",
                        removed, freeFor, locks.getNamespace().getFullName(), floorRaisedTo);
            }
            long sessions = removeEndedSessions(freeFor, DEFAULT_LIMIT);
            if (sessions > 0) {
                LOG.log(Level.INFO, "mongolock removed {0} session document(s) ended over {1} ago from {2}, after freeing"
                        + " the locks still held under them", sessions, freeFor, locks.getNamespace().getFullName());
            }
        } catch (RuntimeException failure) {
            LOG.log(Level.WARNING, "mongolock could not clean up idle lock documents of " + locks.getNamespace().getFullName()
                    + "; it tries again in " + every + ": " + failure.getMessage());
        }
    }

    /**
     * Whether this caller should run the clean-up now: true for the first caller after the last run's
     * {@code every} is over, false for every other until the next interval ends. One compare-and-set on the
     * collection's state document; {@code by} is recorded for people.
     */
    public boolean claimRun(Duration every, String by) {
        Instant now = Instant.now(clock);
        try {
            // A flat filter, so that the upsert takes its _id from it on every server (see LockWrites.freeForManager).
            calls.call("claim the idle clean-up of", "(idle clean-up)", () -> locks.findOneAndUpdate(
                    new Document(ID, COLLECTION_STATE_ID).append("$or",
                            List.of(exists(CLEAN_UP_DUE_AT, false), lte(CLEAN_UP_DUE_AT, Date.from(now)))),
                    Updates.combine(Updates.set(CLEAN_UP_DUE_AT, Date.from(now.plus(every))), Updates.set(CLEAN_UP_BY, by)),
                    CLAIM));
            return true;
        } catch (LockStoreException failure) {
            if (StoreCalls.isDuplicateKey(failure.getCause())) {
                return false; // the state document exists and the next run is not due yet
            }
            throw failure;
        }
    }
}
