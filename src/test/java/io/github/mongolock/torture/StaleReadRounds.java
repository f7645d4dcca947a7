package io.github.mongolock.torture;

import static com.mongodb.client.model.Filters.gt;

import com.mongodb.client.MongoCollection;
import io.github.mongolock.mongo.IdleLockCleaner;
import io.github.mongolock.mongo.MongoLockStore;
import io.github.mongolock.testing.ArmedFault;
import io.github.mongolock.testing.ReplicaSetFaults;
import io.github.mongolock.testing.ReplicaSnapshot;
import io.github.mongolock.testing.StaleWindow;
import io.github.mongolock.testing.WireCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.Document;

/**
 * The faults of {@link Scenario#STALE_READS}, made through {@link ReplicaSetFaults} while the workers contend.
 * Each round:
 * <ol>
 * <li>the harness waits until a lock has been held for a while under a session missing from the round's snapshot
 * (the workload holds one section in 5 for 0.1-0.4 s); the first round's snapshot was taken before the workers
 * started, so every session is missing from it;</li>
 * <li>a reply is lost: one of the next few writes to the lock collection is applied and its answer dropped (a
 * later answered write covers it, as in an oplog, so it is rarely rolled back);</li>
 * <li>an election is armed on the first majority read of a session the snapshot lacks, or of the collection's
 * token floor: a waiter that has just read a lock held under a new session (a fresh read) then reads that session
 * from the snapshot, "not found", as when an election falls between its two reads (SERVER-53813); a lock
 * document re-created after the clean-up reads the floor as it was before;</li>
 * <li>the idle clean-up ({@link IdleLockCleaner}, production code, from the harness's own client) removes free lock
 * documents and raises the floor, so that the next acquire of such a name re-creates its document;</li>
 * <li>the stale window lasts 1-2 s (if no such read came within {@link #TRIGGER_WITHIN}, the election is started
 * anyway), the clean-up running every 100 ms meanwhile;</li>
 * <li>the next round's snapshot is taken and a holder is killed (on a thread of its own, which waits for its lock
 * to be granted again): its replacement opens a session that snapshot lacks;</li>
 * <li>one of the next few writes to the lock collection is applied, its answer lost and an election follows at
 * once: it is rolled back (tried again, up to 4 times, where the write was a compare-and-set that changed nothing).</li>
 * </ol>
 * The figures (how many reads were stale, of sessions, of the floor, and how many found nothing) are counted from
 * the layer's record of its stale reads.
 */
final class StaleReadRounds {

    /** How long an armed election waits for its read before the harness starts it. */
    static final Duration TRIGGER_WITHIN = Duration.ofSeconds(2);
    /** How long the harness waits for a long hold under a session the snapshot lacks (a replacement's JVM starts meanwhile). */
    private static final Duration NEW_SESSION_WITHIN = Duration.ofSeconds(8);
    /**
     * A hold seen this long is one of the workload's longer ones (0.1-0.4 s), not a section of a few milliseconds:
     * its waiters' reads (a few milliseconds from the lock to its session) meet it while it lasts.
     */
    private static final Duration LONG_HOLD = Duration.ofMillis(60);
    private static final Duration CLEAN_UP_WITHIN = Duration.ofMillis(600);
    private static final Duration CLEAN_UP_EVERY = Duration.ofMillis(100);
    private static final Duration LOST_WRITE_WITHIN = Duration.ofSeconds(1);
    private static final int ROLLBACK_TRIES = 4;
    private static final Duration GAP = Duration.ofMillis(300);

    /**
     * What the rounds did.
     *
     * @param longHoldsMet           rounds whose election was armed once a lock had been held long under a session the
     *                               snapshot lacked
     * @param staleSessionReads      majority reads of a session document answered from a snapshot
     * @param sessionsNotFound       those that found nothing (the session was opened after the snapshot)
     * @param staleFloorReads        majority reads of the collection's token floor answered from a snapshot
     * @param electionsOnTheirRead   elections that began at the read they were armed for (the others the harness started)
     */
    record Figures(int rounds, int kills, int longHoldsMet, long elections, int electionsOnTheirRead, long staleReads, long staleLockReads,
                   long locksNotFound, long staleSessionReads, long sessionsNotFound, long staleFloorReads,
                   long floorsNotFound, long lostReplies, long rolledBackWrites, long keptWrites, long unchangedWrites,
                   long idleLocksRemoved,
                   List<String> layerProblems) {

        static final Figures NONE = new Figures(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of());
    }

    private final ReplicaSetFaults faults;
    private final FaultInjector injector;
    private final MongoCollection<Document> locks;
    private final String database;
    private final Random random;
    /** The production clean-up, on the harness's own client: the floor raised, then free documents removed. */
    private final IdleLockCleaner cleaner;
    private final List<NetworkFault> shown = Collections.synchronizedList(new ArrayList<>());
    private int rounds;
    private final AtomicInteger kills = new AtomicInteger();
    private int electionsOnTheirRead;
    private int longHoldsMet;
    private long idleRemoved;

    /**
     * @param locks the lock collection, read and cleaned up directly (not through the layer)
     */
    StaleReadRounds(ReplicaSetFaults faults, FaultInjector injector, MongoCollection<Document> locks, long seed) {
        this.faults = faults;
        this.injector = injector;
        this.locks = locks;
        this.database = locks.getNamespace().getDatabaseName();
        this.random = new Random(seed);
        this.cleaner = new IdleLockCleaner(new MongoLockStore(locks));
    }

    /** Rounds until {@code until}; the first from {@code beforeStart}, taken before the workers started. */
    void run(ReplicaSnapshot beforeStart, long until) {
        ReplicaSnapshot snapshot = beforeStart;
        Thread kill = null;
        try {
            while (before(until)) {
                long began = System.nanoTime();
                boolean longHold = awaitLongHoldUnderNewSession(snapshot,
                        Math.min(until, System.nanoTime() + NEW_SESSION_WITHIN.toNanos()));
                if (!before(until)) {
                    break;
                }
                rounds++;
                longHoldsMet += longHold ? 1 : 0;
                long removedBefore = idleRemoved;
                boolean onItsRead = staleWindow(snapshot);
                // The next round's snapshot, then a holder killed: its replacement's session is missing from it. The
                // kill waits for the victim's lock to be granted again, on a thread of its own meanwhile.
                snapshot = faults.snapshot(database, WorkerSettings.LOCKS_COLLECTION);
                join(kill);
                kill = new Thread(() -> kills.addAndGet(injector.killHolder() ? 1 : 0), "torture-stale-reads-kill");
                kill.start();
                long rolledBack = faults.figures().rolledBackWrites();
                rollBackOneWrite();
                System.out.println("[torture] stale reads, round " + rounds + ": " + (longHold ? "a long hold under a session"
                        + " missing from the snapshot" : "no long hold under a session missing from the snapshot") + " after "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began) + " ms into the round; election "
                        + (onItsRead ? "on its read" : "started by the harness") + "; " + (idleRemoved - removedBefore)
                        + " idle lock documents removed; " + (faults.figures().rolledBackWrites() - rolledBack)
                        + " write rolled back");
                FaultInjector.sleepUntil(System.nanoTime() + GAP.toNanos());
            }
        } finally {
            join(kill);
        }
    }

    /**
     * One stale window from {@code snapshot}: an answer lost, the election armed on its read (or started after
     * {@link #TRIGGER_WITHIN}), the idle clean-up before and during the window.
     *
     * @return whether the election began at the read it was armed for
     */
    private boolean staleWindow(ReplicaSnapshot snapshot) {
        Duration length = Duration.ofMillis(1000 + random.nextInt(1001));
        ArmedFault lost = faults.loseReply(ReplicaSetFaults.nth(1 + random.nextInt(5), this::lockWrite));
        ArmedFault election = faults.armElection(electionRead(snapshot), StaleWindow.majorityReads(snapshot, length));
        idleRemoved += cleanUpIdle();
        boolean onItsRead;
        try {
            onItsRead = election.awaitHit(TRIGGER_WITHIN);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", interrupted);
        }
        if (onItsRead) {
            electionsOnTheirRead++;
        } else {
            election.fireNow();
        }
        long opened = election.happenedAtNanos();
        // More clean-ups while the window lasts: a name re-created now reads the token floor under it.
        while (before(opened + length.toNanos() - CLEAN_UP_EVERY.toNanos())) {
            FaultInjector.sleepUntil(System.nanoTime() + CLEAN_UP_EVERY.toNanos());
            idleRemoved += cleaner.removeIdle(Duration.ZERO, 100).removed();
        }
        FaultInjector.sleepUntil(opened + length.toNanos());
        shown.add(new NetworkFault(NetworkFault.Kind.STALE_WINDOW, opened, opened + length.toNanos()));
        lost.cancel();
        if (lost.happened()) {
            shown.add(new NetworkFault(NetworkFault.Kind.LOST_REPLY, lost.happenedAtNanos(), lost.happenedAtNanos()));
        }
        return onItsRead;
    }

    private static void join(Thread thread) {
        if (thread == null) {
            return;
        }
        try {
            thread.join();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", interrupted);
        }
    }

    /**
     * Loses the answer of one of the next few writes to the lock collection and elects at once, until a write is
     * rolled back (a compare-and-set that matched nothing has nothing to undo), at most {@link #ROLLBACK_TRIES} times.
     */
    private void rollBackOneWrite() {
        long before = faults.figures().rolledBackWrites();
        for (int tries = 0; tries < ROLLBACK_TRIES && faults.figures().rolledBackWrites() == before; tries++) {
            ArmedFault lost = faults.loseReplyThenElect(ReplicaSetFaults.nth(1 + random.nextInt(5), this::lockWrite));
            awaitOrCancel(lost, LOST_WRITE_WITHIN);
            if (lost.happened()) {
                shown.add(new NetworkFault(faults.figures().rolledBackWrites() > before ? NetworkFault.Kind.ROLLED_BACK
                        : NetworkFault.Kind.LOST_REPLY, lost.happenedAtNanos(), lost.happenedAtNanos()));
            }
        }
    }

    /** The stale windows, lost replies and rollbacks, for the timeline. */
    List<NetworkFault> shown() {
        return List.copyOf(shown);
    }

    Figures figures() {
        long lockReads = 0;
        long locksNotFound = 0;
        long sessionReads = 0;
        long sessionsNotFound = 0;
        long floorReads = 0;
        long floorsNotFound = 0;
        for (ReplicaSetFaults.StaleRead read : faults.staleReads()) {
            BsonValue id = read.command().targetId();
            boolean none = read.returned() == 0;
            if (id != null && id.isString()) {
                lockReads++;
                locksNotFound += none ? 1 : 0;
            } else if (isSession(id)) {
                sessionReads++;
                sessionsNotFound += none ? 1 : 0;
            } else if (isFloor(id)) {
                floorReads++;
                floorsNotFound += none ? 1 : 0;
            }
        }
        ReplicaSetFaults.Figures layer = faults.figures();
        return new Figures(rounds, kills.get(), longHoldsMet, layer.elections(), electionsOnTheirRead, layer.staleReads(), lockReads,
                locksNotFound, sessionReads, sessionsNotFound, floorReads, floorsNotFound, layer.lostReplies(),
                layer.rolledBackWrites(), layer.keptWrites(), layer.unchangedWrites(), idleRemoved, faults.problems());
    }

    /**
     * The read an election is armed for: a majority read of the lock collection naming a session the snapshot lacks
     * (a waiter that has just read a lock held under it), or the token floor (an acquire that re-created a lock document).
     */
    private Predicate<WireCommand> electionRead(ReplicaSnapshot snapshot) {
        return command -> {
            if (!command.isRead() || !command.on(database, WorkerSettings.LOCKS_COLLECTION)
                    || !command.readConcern().equals("majority")) {
                return false;
            }
            BsonValue id = command.targetId();
            return isFloor(id) || isSession(id) && !snapshot.contains(WorkerSettings.LOCKS_COLLECTION, id);
        };
    }

    private boolean lockWrite(WireCommand command) {
        return command.isWrite() && command.on(database, WorkerSettings.LOCKS_COLLECTION);
    }

    /**
     * Waits until a lock has been held, by one acquisition, for {@link #LONG_HOLD} under a session {@code snapshot}
     * lacks (one of the workload's 0.1-0.4 s holds), or {@code deadline}: its waiters then read that session while it is
     * held, and a take on a stale "not found" would meet a live holder.
     *
     * @return whether such a hold was seen
     */
    private boolean awaitLongHoldUnderNewSession(ReplicaSnapshot snapshot, long deadline) {
        Map<String, String> holds = new HashMap<>();
        Map<String, Long> since = new HashMap<>();
        while (before(deadline)) {
            long now = System.nanoTime();
            for (Document lock : locks.find(gt("holds", 0))) {
                if (!(lock.get("_id") instanceof String name) || !(lock.get("session") instanceof String session)
                        || snapshot.contains(WorkerSettings.LOCKS_COLLECTION, sessionId(session))) {
                    continue;
                }
                String hold = lock.get("owner") + "/" + lock.get("leaseId");
                if (!hold.equals(holds.put(name, hold))) {
                    since.put(name, now);
                } else if (now - since.get(name) >= LONG_HOLD.toNanos()) {
                    return true;
                }
            }
            FaultInjector.sleepUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20));
        }
        return false;
    }

    private static BsonDocument sessionId(String session) {
        return new BsonDocument("mongolock", new BsonString("session")).append("id", new BsonString(session));
    }

    /** The idle clean-up, tried until it removes a free lock document (or {@link #CLEAN_UP_WITHIN}); how many it removed. */
    private long cleanUpIdle() {
        long giveUp = System.nanoTime() + CLEAN_UP_WITHIN.toNanos();
        long removed;
        do {
            removed = cleaner.removeIdle(Duration.ZERO, 100).removed();
            if (removed == 0) {
                FaultInjector.sleepUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(15));
            }
        } while (removed == 0 && before(giveUp));
        return removed;
    }

    private static void awaitOrCancel(ArmedFault fault, Duration within) {
        try {
            if (!fault.awaitHit(within)) {
                fault.cancel();
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", interrupted);
        }
    }

    private static boolean isSession(BsonValue id) {
        return id != null && id.isDocument() && new BsonString("session").equals(id.asDocument().get("mongolock"));
    }

    private static boolean isFloor(BsonValue id) {
        return id != null && id.isDocument() && new BsonString("collection").equals(id.asDocument().get("mongolock"));
    }

    private static boolean before(long nanos) {
        return nanos - System.nanoTime() > 0;
    }
}
