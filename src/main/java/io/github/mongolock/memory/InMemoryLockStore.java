package io.github.mongolock.memory;

import io.github.mongolock.LockInfo;
import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.LeaseClaim;
import io.github.mongolock.core.LeaseWatch;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.ReleaseFeed;
import io.github.mongolock.core.RenewalOutcome;
import io.github.mongolock.core.Sighting;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
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
 * name with the MongoDB document's fields (owner, holds, version, token, beat, lease id, lease length, the
 * queue of waiting managers, the minimum hold's release time), changed exactly as MongoDB's updates change
 * them. The shared contract suite ({@code LockStoreContract}) runs against this store and against MongoDB,
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
    /** Starts every lease id, as in MongoDB: its holder renews {@code beat}. */
    private static final String BEAT_RENEWED = "b";
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

    private final Clock databaseClock;
    /** Guarded by {@code this}. */
    private final Map<String, StoredLock> locks = new HashMap<>();
    /** Guarded by {@code this}: makes lease ids unique in this store. */
    private long leases;
    private final List<ReleaseFeed.Listener> releaseListeners = new CopyOnWriteArrayList<>();

    /** A store whose database clock is the system's UTC clock. */
    public InMemoryLockStore() {
        this(Clock.systemUTC());
    }

    /** @param databaseClock what plays MongoDB's clock (see the class comment); e.g. a test's adjustable clock */
    public InMemoryLockStore(Clock databaseClock) {
        this.databaseClock = Objects.requireNonNull(databaseClock, "databaseClock");
    }

    @Override
    public AcquireAttempt tryAcquire(String name, String owner, Duration lease) {
        String manager = LockStore.managerOf(owner);
        synchronized (this) {
            StoredLock lock = locks.get(name);
            if (lock == null) {
                lock = new StoredLock();
                locks.put(name, lock);
                return take(lock, owner, lease, List.of(manager));
            }
            String head = lock.queue.isEmpty() ? null : lock.queue.get(0);
            if (lock.holds == 0 && (head == null || head.equals(manager))) {
                return take(lock, owner, lease, List.of(manager));
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
    public synchronized AcquireAttempt handOver(String name, String owner, long version, String newOwner, Duration lease) {
        StoredLock lock = ownedAt(name, owner, version);
        return lock == null || lock.holds != 1 ? AcquireAttempt.Busy.unknown() : take(lock, newOwner, lease, List.of());
    }

    @Override
    public synchronized AcquireAttempt takeOver(String name, String owner, Duration lease, Sighting sighting) {
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
        return take(lock, owner, lease, unqueued);
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

    @Override
    public synchronized RenewalOutcome renew(Collection<LeaseClaim> claims) {
        Set<String> confirmed = new LinkedHashSet<>();
        Map<String, String> lossReasons = new HashMap<>();
        Instant now = databaseClock.instant();
        for (LeaseClaim claim : claims) {
            StoredLock lock = locks.get(claim.name());
            // Lease ids are unique per acquisition: a claim matches its own lock only.
            if (lock != null && claim.owner().equals(lock.owner) && claim.leaseId().equals(lock.leaseId)) {
                lock.beat++;
                lock.renewedAt = now;
                confirmed.add(claim.name());
            } else if (lock != null && claim.owner().equals(lock.revokedOwner)) {
                lossReasons.put(claim.name(), RenewalOutcome.releasedByOperator(lock.revokedBy, lock.revokedReason));
            }
        }
        return new RenewalOutcome(confirmed, lossReasons);
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
        Instant expiresAt = lock.renewedAt.plusMillis(lock.leaseMs);
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
            setHolds(lock, 0);
            lock.version++;
            freedHead = lock.head();
        }
        released(name, freedHead);
        return Optional.of(previous);
    }

    /**
     * The control behind {@link InMemoryLocks#expire}: the holder's lease ends now, as if it had crashed long
     * ago. A new lease id, so the holder's renewals are not confirmed any more; renewed, by the database's clock,
     * so long ago that every waiter takes it over at once (the fast path); waiting managers are told to look.
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
     * grant with the holder's lease length (or {@code lease} if nobody held it). Nobody renews the new lease.
     *
     * @return the previous holder (empty when nobody held it) and the new fencing token
     */
    synchronized TakenOver giveTo(String name, String owner, Duration lease) {
        StoredLock lock = locks.computeIfAbsent(name, absent -> new StoredLock());
        Optional<String> previous = lock.holds == 0 ? Optional.empty() : Optional.of(lock.owner);
        Duration length = lock.holds == 0 ? lease : Duration.ofMillis(lock.leaseMs);
        AcquireAttempt.Granted granted = take(lock, owner, length, List.of(LockStore.managerOf(owner)));
        return new TakenOver(previous, granted.fencingToken());
    }

    /** What {@link #giveTo} did. */
    record TakenOver(Optional<String> previousOwner, long fencingToken) {
    }

    /** Caller holds the monitor: the lock is {@code owner}'s at {@code version}, or null. */
    private StoredLock ownedAt(String name, String owner, long version) {
        StoredLock lock = locks.get(name);
        return lock != null && owner.equals(lock.owner) && lock.version == version ? lock : null;
    }

    /** Caller holds the monitor: {@code holds == 0} frees the lock (owner null), as MongoDB's release does. */
    private static void setHolds(StoredLock lock, int holds) {
        lock.holds = holds;
        if (holds == 0) {
            lock.owner = null;
        }
    }

    /** Caller holds the monitor: a fresh grant, as MongoDB's {@code take} update. */
    private AcquireAttempt.Granted take(StoredLock lock, String owner, Duration lease, List<String> unqueued) {
        Instant now = databaseClock.instant();
        lock.owner = owner;
        lock.holds = 1;
        lock.leaseId = BEAT_RENEWED + Long.toHexString(++leases);
        lock.leaseMs = wholeMillisUp(lease);
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

    /** A duration as MongoDB stores it: whole milliseconds rounded up, at least 1. */
    static long wholeMillisUp(Duration duration) {
        long millis = duration.toMillis();
        return Math.max(1, duration.equals(Duration.ofMillis(millis)) ? millis : millis + 1);
    }
}
