package io.github.mongolock.memory;

import io.github.mongolock.LockInfo;
import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.LeaseClaim;
import io.github.mongolock.core.LeaseWatch;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.PermitStore;
import io.github.mongolock.core.ReadWriteStore;
import io.github.mongolock.core.ReleaseFeed;
import io.github.mongolock.core.SessionCheck;
import io.github.mongolock.core.SessionRenewal;
import io.github.mongolock.core.Sighting;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The lock protocol of {@code MongoLockStore} on a map in this JVM, for tests: one {@link StoredLock} per
 * name with the MongoDB document's fields (owner, holds, version, token, beat, lease id, lease length, session,
 * the queue of waiting managers, the minimum hold's release time), and one {@link StoredLock.StoredSession} per
 * session, changed exactly as MongoDB's updates change them. The shared contract suite ({@code LockStoreContract}) runs against this store and against MongoDB,
 * so the two cannot drift apart.
 *
 * <p><b>The database's clock</b> is the {@link Clock} given to the constructor ({@link Clock#systemUTC()} by
 * default). As MongoDB's {@code $$NOW}, it decides only what a wall clock may decide: the times shown by
 * {@link #inspect} (and whether it shows a lease as over), the fast path for a lease unrenewed for very long
 * ({@link Sighting#endedLongAgo()}), and the end of a minimum hold whose holder already released. Who holds a
 * lock is decided, as everywhere, by the waiters' monotonic clocks.
 *
 * <p><b>What it is not:</b> it never fails (no {@link io.github.mongolock.LockStoreException}, no lost
 * answers, no network), and it lives as long as the object: nothing is persisted. Every operation is atomic
 * (one monitor) and thread-safe. Releases are pushed to the {@link #releaseFeed() release feeds} of the managers
 * built on it, as MongoDB's change stream pushes them.
 */
public final class InMemoryLockStore implements LockStore {

    /** As {@code MongoLockStore.LONG_AGO}: unrenewed this much past a waiter's watch, a lease is taken at once. */
    static final Duration LONG_AGO = Duration.ofMinutes(1);
    /** As {@code MongoLockStore.TURN_GRACE}: how long a free lock waits for its queue's head at most. */
    static final Duration TURN_GRACE = Duration.ofSeconds(3);
    /** Starts the lease id of a lease renewed by itself ({@link #giveTo}, {@link #expire}): waiters watch {@code beat}. */
    private static final String BEAT_RENEWED = "b";
    /** Starts the lease id of an acquisition held under a session, as in MongoDB. */
    private static final String SESSION_HELD = "s";
    /** Starts the lease id of a lease kept for a minimum hold ("k" is no hex digit). */
    private static final String KEPT = BEAT_RENEWED + "k";

    /**
     * The state a waiter watches, as {@code MongoLockStore}'s: equal only if nothing touched the lock in
     * between. {@code head} is not compared by a takeover (a head that changed costs fairness, never safety).
     */
    private record WatchedState(long version, long beat, String owner, int holds, String head) {
        boolean unchangedIn(StoredLock lock) {
            return lock.version == version && lock.beat == beat && Objects.equals(lock.owner, owner)
                    && lock.holds == holds;
        }
    }

    /**
     * The state a waiter watches of a lock held under a session, as {@code MongoLockStore}'s: the lock's version
     * and its session's beat ({@code sessionBeat} -1: the session was seen ended).
     */
    private record HeldBySession(long version, String owner, String session, long sessionBeat) {
        boolean unchangedIn(StoredLock lock) {
            return lock.version == version && Objects.equals(lock.owner, owner) && Objects.equals(lock.session, session);
        }
    }

    private final Clock databaseClock;
    /** Guarded by {@code this}. */
    private final Map<String, StoredLock> locks = new HashMap<>();
    /** Guarded by {@code this}. */
    private final Map<String, StoredLock.StoredSession> sessions = new HashMap<>();
    /** Guarded by {@code this}: makes session ids unique in this store. */
    private long sessionIds;
    /** Guarded by {@code this}: makes lease ids unique in this store. */
    private long leases;
    private final List<ReleaseFeed.Listener> releaseListeners = new CopyOnWriteArrayList<>();
    /** The leased semaphores, under this store's monitor and sessions. */
    private final InMemoryPermits permits = new InMemoryPermits(this);
    private final InMemoryPermits readWrites = new InMemoryPermits(this, true);

    /** A store whose database clock is the system's UTC clock. */
    public InMemoryLockStore() {
        this(Clock.systemUTC());
    }

    /** @param databaseClock what plays MongoDB's clock (see the class comment); e.g. a test's adjustable clock */
    public InMemoryLockStore(Clock databaseClock) {
        this.databaseClock = Objects.requireNonNull(databaseClock, "databaseClock");
    }

    @Override
    public AcquireAttempt tryAcquire(String name, String owner, String session) {
        String manager = LockStore.managerOf(owner);
        synchronized (this) {
            StoredLock lock = locks.get(name);
            if (lock == null) {
                lock = new StoredLock();
                locks.put(name, lock);
                return take(lock, owner, session, List.of(manager));
            }
            String head = lock.queue.isEmpty() ? null : lock.queue.get(0);
            if (lock.holds == 0 && (head == null || head.equals(manager))) {
                return take(lock, owner, session, List.of(manager));
            }
            return AcquireAttempt.Busy.seen(sighting(lock), lock.queue.contains(manager));
        }
    }

    @Override
    public synchronized void joinQueue(String name, String manager) {
        StoredLock lock = locks.get(name);
        if (lock != null && !lock.queue.contains(manager)) {
            lock.queue.add(manager);
        }
    }

    @Override
    public synchronized void leaveQueue(String name, String manager) {
        StoredLock lock = locks.get(name);
        if (lock != null) {
            lock.queue.remove(manager);
        }
    }

    @Override
    public synchronized AcquireAttempt handOver(String name, String owner, long version, String newOwner, String session) {
        StoredLock lock = ownedAt(name, owner, version);
        return lock == null || lock.holds != 1 ? AcquireAttempt.Busy.unknown() : take(lock, newOwner, session, List.of());
    }

    @Override
    public synchronized AcquireAttempt takeOver(String name, String owner, String session, Sighting sighting) {
        if (sighting.state() instanceof HeldBySession seen) {
            // As MongoDB's: first the session ends (if still at the beat watched), then the lock is taken.
            StoredLock.StoredSession held = sessions.get(seen.session());
            if (held != null && held.live) {
                if (seen.sessionBeat() < 0 || held.beat != seen.sessionBeat()) {
                    return AcquireAttempt.Busy.unknown(); // renewed since: watch again
                }
                held.live = false;
            }
            StoredLock lock = locks.get(name);
            if (lock == null || !seen.unchangedIn(lock)) {
                return AcquireAttempt.Busy.unknown();
            }
            return take(lock, owner, session, List.of(LockStore.managerOf(owner)));
        }
        if (!(sighting.state() instanceof WatchedState seen)) {
            throw new IllegalArgumentException("not a sighting of this store: " + sighting);
        }
        StoredLock lock = locks.get(name);
        if (lock == null || !seen.unchangedIn(lock)) {
            return AcquireAttempt.Busy.unknown();
        }
        String manager = LockStore.managerOf(owner);
        // A head that let a free lock wait a whole watch period did not take its turn: out of the queue.
        List<String> unqueued = seen.head() == null || seen.head().equals(manager)
                ? List.of(manager) : List.of(manager, seen.head());
        return take(lock, owner, session, unqueued);
    }

    @Override
    public synchronized boolean reenter(String name, String owner, long version) {
        StoredLock lock = ownedAt(name, owner, version);
        if (lock == null) {
            return false;
        }
        lock.holds++;
        lock.version++;
        lock.renewedAt = databaseClock.instant();
        return true;
    }

    @Override
    public boolean release(String name, String owner, long version, int remainingHolds) {
        String freedHead;
        synchronized (this) {
            StoredLock lock = ownedAt(name, owner, version);
            if (lock == null) {
                return false;
            }
            setHolds(lock, remainingHolds);
            lock.version++;
            freedHead = lock.head();
        }
        if (remainingHolds == 0) {
            released(name, freedHead);
        }
        return true;
    }

    @Override
    public synchronized boolean releaseKeeping(String name, String owner, long version, Duration keepFor) {
        StoredLock lock = ownedAt(name, owner, version);
        if (lock == null) {
            return false;
        }
        // A lease nobody renews, of the time left: a new lease id (a renewal in flight misses it), and beat and
        // version moved so every waiter's watch starts again from here.
        Instant now = databaseClock.instant();
        lock.holds = 1;
        lock.leaseId = KEPT + Long.toHexString(++leases);
        lock.leaseMs = wholeMillisUp(keepFor);
        lock.version++;
        lock.beat++;
        lock.renewedAt = now;
        lock.releasedAt = now;
        lock.session = null; // nobody renews a kept lease: waiters watch the lock itself
        return true;
    }

    @Override
    public OptionalLong resync(String name, String owner, String leaseId, int holds) {
        long version;
        String freedHead;
        synchronized (this) {
            StoredLock lock = locks.get(name);
            if (lock == null || !owner.equals(lock.owner) || !leaseId.equals(lock.leaseId)) {
                return OptionalLong.empty();
            }
            setHolds(lock, holds);
            lock.version++;
            if (holds > 0) {
                lock.renewedAt = databaseClock.instant();
            }
            version = lock.version;
            freedHead = lock.head();
        }
        if (holds == 0) {
            released(name, freedHead);
        }
        return OptionalLong.of(version);
    }

    @Override
    public void abandon(String name, String owner) {
        String freedHead;
        synchronized (this) {
            StoredLock lock = locks.get(name);
            if (lock == null || !owner.equals(lock.owner)) {
                return;
            }
            setHolds(lock, 0);
            lock.version++;
            freedHead = lock.head();
        }
        released(name, freedHead);
    }

    /**
     * Ends {@code session} if it is not live, or live at exactly {@code beat} (null: not watched), as MongoDB's store
     * does by a compare-and-set; an unknown session is left ended (a tombstone). False when it is live otherwise.
     */
    synchronized boolean endUnlessLive(String session, Object beat) {
        StoredLock.StoredSession held = sessions.get(session);
        if (held == null) {
            StoredLock.StoredSession tombstone = new StoredLock.StoredSession("ended by a waiter", 1, databaseClock.instant());
            tombstone.live = false;
            sessions.put(session, tombstone);
            return true;
        }
        if (!held.live) {
            return true;
        }
        if (beat instanceof Long watched && watched == held.beat) {
            held.live = false;
            return true;
        }
        return false;
    }

    /** The session as stored, or null. Guarded by {@code this}. */
    StoredLock.StoredSession storedSession(String session) {
        return sessions.get(session);
    }

    @Override
    public Optional<PermitStore> permitStore() {
        return Optional.of(permits);
    }

    @Override
    public Optional<ReadWriteStore> readWriteStore() {
        return Optional.of(readWrites);
    }

    @Override
    public synchronized String openSession(String manager, Duration lease) {
        String id = "session-" + Long.toHexString(++sessionIds);
        sessions.put(id, new StoredLock.StoredSession(manager, wholeMillisUp(lease), databaseClock.instant()));
        return id;
    }

    @Override
    public synchronized SessionRenewal renewSession(String session) {
        StoredLock.StoredSession held = sessions.get(session);
        if (held == null || !held.live) {
            return SessionRenewal.ENDED;
        }
        held.beat++;
        held.renewedAt = databaseClock.instant();
        return new SessionRenewal(true, held.checks);
    }

    @Override
    public synchronized void endSession(String session) {
        StoredLock.StoredSession held = sessions.get(session);
        if (held != null) {
            held.live = false;
        }
    }

    @Override
    public synchronized SessionCheck checkSession(String session, Collection<LeaseClaim> claims) {
        List<SessionCheck.HeldUnder> held = new ArrayList<>();
        locks.forEach((name, lock) -> {
            if (session.equals(lock.session) && lock.holds > 0) {
                held.add(new SessionCheck.HeldUnder(name, lock.owner, lock.leaseId, lock.version));
            }
        });
        Map<String, String> lossReasons = new HashMap<>();
        for (LeaseClaim claim : claims) {
            StoredLock lock = locks.get(claim.name());
            if (lock != null && claim.owner().equals(lock.revokedOwner)) {
                lossReasons.put(claim.name(), SessionCheck.releasedByOperator(lock.revokedBy, lock.revokedReason));
            }
        }
        return new SessionCheck(held, lossReasons);
    }

    /** Caller holds the monitor: the session holding {@code lock} (if any) is told to check its locks. */
    private void tellSession(StoredLock lock) {
        StoredLock.StoredSession held = lock.session == null ? null : sessions.get(lock.session);
        if (held != null) {
            held.checks++;
        }
    }

    /**
     * What {@code io.github.mongolock.admin.LockAdmin}'s forced release does to MongoDB's document: frees the lock if
     * {@code owner} still holds it at {@code version}, and records who ended which acquisition and why, so that the
     * holder's next renewal learns the reason. The next grant's token is one greater, as after any release.
     *
     * @return false when the lock is not {@code owner}'s at {@code version} (nothing changed)
     */
    public boolean releaseByOperator(String name, String owner, long version, String operator, String reason) {
        String freedHead;
        synchronized (this) {
            StoredLock lock = ownedAt(name, owner, version);
            if (lock == null) {
                return false;
            }
            tellSession(lock);
            setHolds(lock, 0);
            lock.version++;
            lock.revokedOwner = owner;
            lock.revokedBy = operator;
            lock.revokedReason = reason;
            freedHead = lock.head();
        }
        released(name, freedHead);
        return true;
    }

    @Override
    public synchronized Optional<LockInfo> inspect(String name) {
        StoredLock lock = locks.get(name);
        if (lock == null || lock.holds == 0) {
            return Optional.empty();
        }
        StoredLock.StoredSession held = lock.session == null ? null : sessions.get(lock.session);
        if (lock.session != null && (held == null || !held.live)) {
            return Optional.empty(); // for people: its session ended; the next waiter takes it
        }
        Instant expiresAt = held != null ? held.renewedAt.plusMillis(held.leaseMs) : lock.renewedAt.plusMillis(lock.leaseMs);
        if (!expiresAt.isAfter(databaseClock.instant())) {
            return Optional.empty(); // for people: its holder stopped renewing; the next waiter takes it over
        }
        return Optional.of(new LockInfo(name, lock.owner, lock.holds, lock.token, expiresAt));
    }

    /**
     * A release feed of this store for one manager: it pushes every release of any manager on this store at
     * once, as MongoDB's change stream does. Closing it stops the pushes to its listener.
     */
    public ReleaseFeed releaseFeed() {
        return new InMemoryReleaseFeed(releaseListeners);
    }

    /**
     * The control behind {@link InMemoryLocks#loseLease}: frees a held lock whoever holds it, as if another owner
     * had taken it over and released it since (the token stays: the next grant's is one greater).
     *
     * @return the owner that held it, empty when nobody did (nothing changed)
     */
    Optional<String> free(String name) {
        String previous;
        String freedHead;
        synchronized (this) {
            StoredLock lock = locks.get(name);
            if (lock == null || lock.holds == 0) {
                return Optional.empty();
            }
            previous = lock.owner;
            tellSession(lock);
            setHolds(lock, 0);
            lock.version++;
            freedHead = lock.head();
        }
        released(name, freedHead);
        return Optional.of(previous);
    }

    /**
     * The control behind {@link InMemoryLocks#expire}: the holder's lease ends now, as if it had crashed long
     * ago. The lock leaves its session under a new lease id, so the holder's next session check finds it lost (its
     * session is told to check); renewed, by the database's clock, so long ago that every waiter takes it over at
     * once (the fast path); waiting managers are told to look.
     *
     * @return the owner whose lease ended, empty when nobody held it (nothing changed)
     */
    Optional<String> expire(String name) {
        String expired;
        synchronized (this) {
            StoredLock lock = locks.get(name);
            if (lock == null || lock.holds == 0) {
                return Optional.empty();
            }
            expired = lock.owner;
            tellSession(lock);
            lock.session = null;
            Duration lease = Duration.ofMillis(lock.leaseMs);
            lock.leaseId = BEAT_RENEWED + Long.toHexString(++leases);
            lock.renewedAt = databaseClock.instant().minus(LeaseWatch.watchPeriod(lease))
                    .minus(LONG_AGO.compareTo(lease) > 0 ? LONG_AGO : lease).minusSeconds(1);
            lock.releasedAt = null;
            lock.version++;
            lock.beat++;
        }
        released(name, null);
        return Optional.of(expired);
    }

    /**
     * The control behind {@link InMemoryLocks#takeOver}: {@code owner} takes the lock, held or free, as a fresh
     * grant with the holder's lease length (or {@code lease} if nobody held it), under no session: nobody renews the
     * new lease, and waiters take it over once it stayed unrenewed that long. The previous holder's session is told.
     *
     * @return the previous holder (empty when nobody held it) and the new fencing token
     */
    synchronized TakenOver giveTo(String name, String owner, Duration lease) {
        StoredLock lock = locks.computeIfAbsent(name, absent -> new StoredLock());
        Optional<String> previous = lock.holds == 0 ? Optional.empty() : Optional.of(lock.owner);
        // A kept lock's lease is what was left of a minimum hold nobody is inside: the new owner gets a whole lease.
        boolean kept = lock.holds > 0 && lock.leaseId != null && lock.leaseId.startsWith(KEPT);
        Duration length = lock.holds == 0 || kept ? lease : Duration.ofMillis(lock.leaseMs);
        if (lock.holds > 0) {
            tellSession(lock);
        }
        AcquireAttempt.Granted granted = take(lock, owner, null, List.of(LockStore.managerOf(owner)));
        lock.leaseId = BEAT_RENEWED + lock.leaseId.substring(SESSION_HELD.length());
        lock.leaseMs = wholeMillisUp(length);
        return new TakenOver(previous, lock.token);
    }

    /** What {@link #giveTo} did. */
    record TakenOver(Optional<String> previousOwner, long fencingToken) {
    }

    /** Caller holds the monitor: the lock is {@code owner}'s at {@code version}, or null. */
    private StoredLock ownedAt(String name, String owner, long version) {
        StoredLock lock = locks.get(name);
        return lock != null && owner.equals(lock.owner) && lock.version == version ? lock : null;
    }

    /** Caller holds the monitor: {@code holds == 0} frees the lock (owner and session null), as MongoDB's release does. */
    private static void setHolds(StoredLock lock, int holds) {
        lock.holds = holds;
        if (holds == 0) {
            lock.owner = null;
            lock.session = null;
        }
    }

    /** Caller holds the monitor: a fresh grant, as MongoDB's {@code take} update. */
    private AcquireAttempt.Granted take(StoredLock lock, String owner, String session, List<String> unqueued) {
        Instant now = databaseClock.instant();
        StoredLock.StoredSession held = session == null ? null : sessions.get(session);
        lock.owner = owner;
        lock.holds = 1;
        lock.leaseId = SESSION_HELD + Long.toHexString(++leases);
        lock.session = session;
        lock.leaseMs = held == null ? lock.leaseMs : held.leaseMs;
        lock.version++;
        lock.token++;
        lock.beat++;
        lock.acquiredAt = now;
        lock.renewedAt = now;
        lock.releasedAt = null;
        lock.queue.removeAll(unqueued);
        return new AcquireAttempt.Granted(lock.token, lock.version, lock.leaseId);
    }

    /** Caller holds the monitor: what a waiter sees of a lock it cannot take now, as {@code MongoLockStore} reads it. */
    private Sighting sighting(StoredLock lock) {
        long now = databaseClock.millis();
        if (lock.holds > 0 && lock.session != null) {
            StoredLock.StoredSession held = sessions.get(lock.session);
            boolean ended = held == null || !held.live;
            long leaseMs = held == null ? 1 : held.leaseMs;
            boolean longAgo = ended || now - held.renewedAt.toEpochMilli()
                    > LeaseWatch.watchPeriod(Duration.ofMillis(leaseMs)).toMillis() + Math.max(LONG_AGO.toMillis(), leaseMs);
            return new Sighting(new HeldBySession(lock.version, lock.owner, lock.session, ended ? -1 : held.beat),
                    lock.owner, Duration.ofMillis(leaseMs), longAgo);
        }
        boolean endedLongAgo = false;
        if (lock.holds > 0) {
            // Unrenewed for a waiter's whole watch and then max(1 min, lease) more: only a forward step of the
            // database's clock of at least that much could fake it.
            long watchMs = LeaseWatch.watchPeriod(Duration.ofMillis(lock.leaseMs)).toMillis();
            endedLongAgo = now - lock.renewedAt.toEpochMilli() > watchMs + Math.max(LONG_AGO.toMillis(), lock.leaseMs);
            if (lock.releasedAt != null && lock.leaseId.startsWith(KEPT)) {
                // A minimum hold whose holder released it: nobody is inside, the database's clock may end it.
                endedLongAgo |= now - lock.releasedAt.toEpochMilli() >= lock.leaseMs;
            }
        }
        String head = lock.head();
        String holder = lock.owner != null ? lock.owner : head != null ? "nobody (free, queued for " + head + ")" : "nobody";
        Duration watched = head != null && lock.leaseMs > TURN_GRACE.toMillis() ? TURN_GRACE : Duration.ofMillis(lock.leaseMs);
        return new Sighting(new WatchedState(lock.version, lock.beat, lock.owner, lock.holds, head), holder, watched,
                endedLongAgo);
    }

    /** Tells every feed that {@code name} is free now (or, for an expired lease, worth a look); outside the monitor. */
    private void released(String name, String queueHead) {
        for (ReleaseFeed.Listener listener : releaseListeners) {
            listener.released(name, queueHead);
        }
    }

    /** The test kit's control: every hold of the read-write lock {@code name} taken back; the owners whose they were. */
    List<String> takeBackReadWrite(String name) {
        return readWrites.takeBackAll(name);
    }

    /** The test kit's control: every permit of {@code name} taken back; the owners whose permits they were. */
    List<String> takeBackPermits(String name) {
        return permits.takeBackAll(name);
    }

    /** Tells every feed that permits of the semaphore {@code name} were given back; outside the monitor. */
    void permitsReleased(String name, String queueHead) {
        for (ReleaseFeed.Listener listener : releaseListeners) {
            listener.permitsReleased(name, queueHead);
        }
    }

    /** Tells every feed that holds of the read-write lock {@code name} were given back; outside the monitor. */
    void readWritesReleased(String name, String queueHead) {
        for (ReleaseFeed.Listener listener : releaseListeners) {
            listener.readWriteReleased(name, queueHead);
        }
    }

    /** A duration as MongoDB stores it: whole milliseconds rounded up, at least 1. */
    static long wholeMillisUp(Duration duration) {
        long millis = duration.toMillis();
        return Math.max(1, duration.equals(Duration.ofMillis(millis)) ? millis : millis + 1);
    }
}
