package io.github.mongolock.memory;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockException;
import io.github.mongolock.core.LockArguments;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Locks for tests, without MongoDB: one {@link InMemoryLockStore} shared by any number of
 * {@link InMemoryLockManager}s ("nodes", which exclude each other as instances of an application do),
 * and controls that do to a held lock what a crash, a lost lease or another instance would.
 *
 * <pre>{@code
 * try (InMemoryLocks locks = new InMemoryLocks()) {
 *     LockManager node1 = locks.newManager("node-1");
 *     LockManager node2 = locks.newManager("node-2");
 *     try (LockSession held = node1.acquire("invoice-run")) {
 *         assertTrue(node2.tryAcquire("invoice-run").isEmpty());
 *         locks.loseLease("invoice-run");             // held.isHeld() is false now, LEASE_LOST was fired
 *     }                                                // close() throws LockLostException
 * }
 * }</pre>
 *
 * <p><b>Controls.</b> Each changes the store in one atomic step, as the named event would change MongoDB's
 * document, and, when the lock was held by one of this factory's managers, returns only once that manager has
 * told the holder as it would with MongoDB: {@code isHeld()} is false, the session's
 * {@link io.github.mongolock.LockSession#onLeaseLost onLeaseLost} actions (so {@code OnLeaseLost.INTERRUPT}'s
 * interrupt) have run, then the manager's listeners got {@code LEASE_LOST}. The holder's next {@code close()}
 * throws {@link io.github.mongolock.LockLostException} and releases nothing.
 *
 * <p>No static state: two factories are independent. Thread-safe. {@link #close()} closes every manager built here.
 */
public final class InMemoryLocks implements AutoCloseable {

    /**
     * The value of the MicroProfile Config key {@code mongolock.uri} that backs a CDI application's locks with an
     * in-memory store (see docs/testing-your-code.md).
     */
    public static final String URI = "memory:";
    /** As {@code MongoLockManager.DEFAULT_LEASE_TIME}. */
    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);
    /** As {@code MongoLockManager.DEFAULT_WAIT_TIME}. */
    public static final Duration DEFAULT_WAIT_TIME = Duration.ofSeconds(10);

    private final InMemoryLockStore store;
    private final List<InMemoryLockManager> managers = new CopyOnWriteArrayList<>();
    private final AtomicInteger built = new AtomicInteger();
    /** Guarded by {@code this}. */
    private boolean closed;

    /** A factory whose store's database clock is the system's UTC clock. */
    public InMemoryLocks() {
        this(Clock.systemUTC());
    }

    /** @param databaseClock what plays MongoDB's clock in the store (see {@link InMemoryLockStore}) */
    public InMemoryLocks(Clock databaseClock) {
        this.store = new InMemoryLockStore(databaseClock);
    }

    /** The store every manager of this factory uses: e.g. for a {@code LockCoordinator} of a test's own. */
    public InMemoryLockStore store() {
        return store;
    }

    /** A builder of a manager on this factory's store (instance id, lease, wait time, listeners). */
    public InMemoryLockManager.Builder manager() {
        return new InMemoryLockManager.Builder(this);
    }

    /** A manager with the default lease (PT30S) and wait time (PT10S), its owners starting with {@code instanceId}. */
    public InMemoryLockManager newManager(String instanceId) {
        return manager().instanceId(instanceId).build();
    }

    /**
     * The holder of {@code name} loses its lease now, as when another owner took the lock over and has released
     * it since: the lock is left free, and the next grant, to anyone, carries the next fencing token. The holder
     * is told (see the class comment).
     *
     * @throws LockException when nobody holds {@code name}: there is no lease to lose
     */
    public void loseLease(String name) {
        String holder = store.free(LockArguments.checkName(name)).orElseThrow(() -> notHeld(name, "lose its lease"));
        tellHolder(name, holder);
    }

    /**
     * The holder of {@code name} is gone, as if it had crashed a long time ago: its lease ends now, its renewals
     * are not confirmed any more, and the lock stays taken until a waiter takes it over, which the next waiter
     * (one waiting now is woken) does at once, with the next fencing token, as MongoDB's fast path for a lease
     * that ended long ago. If the holder's manager is in fact alive, it is told as it would be at its next renewal.
     *
     * @throws LockException when nobody holds {@code name}: there is no lease to end
     */
    public void expire(String name) {
        String holder = store.expire(LockArguments.checkName(name)).orElseThrow(() -> notHeld(name, "expire"));
        tellHolder(name, holder);
    }

    /**
     * {@code owner} (another instance, e.g. {@code "batch-node"}) takes {@code name} over now, held or free: a fresh
     * grant with the next fencing token and the previous holder's lease length (PT30S for a free lock). The previous
     * holder is told. Nobody renews the new owner's lease: the lock is busy for this factory's managers until a
     * waiter has seen it unrenewed for that lease, or until {@link #expire} or {@link #loseLease} ends it.
     *
     * @return the new owner's fencing token
     */
    public long takeOver(String name, String owner) {
        LockArguments.checkName(name);
        Objects.requireNonNull(owner, "owner");
        if (owner.isBlank()) {
            throw new LockConfigurationException("The owner taking lock \"" + name + "\" over is blank: name it, e.g. \"batch-node\".");
        }
        InMemoryLockStore.TakenOver taken = store.giveTo(name, owner, DEFAULT_LEASE_TIME);
        taken.previousOwner().ifPresent(previous -> tellHolder(name, previous));
        return taken.fencingToken();
    }

    /**
     * Every holder of permits of the semaphore {@code name} loses them now, as when other instances found the holders'
     * sessions unrenewed, ended them and took their permits back: all of them are free at once, for anyone, and the next
     * grant carries the next fencing token. Each holder of this factory's managers is told before this returns: its
     * {@code isHeld()} is false, its {@link io.github.mongolock.PermitHold#onLeaseLost onLeaseLost} actions have run,
     * then its listeners got a {@code LEASE_LOST} {@link io.github.mongolock.PermitEvent}; its next {@code close()} throws
     * {@link io.github.mongolock.LockLostException}.
     *
     * @return how many holds lost their permits
     * @throws LockException when nobody holds permits of {@code name}
     */
    public int takeBackPermits(String name) {
        List<String> owners = store.takeBackPermits(LockArguments.checkName(name));
        if (owners.isEmpty()) {
            throw new LockException("Semaphore \"" + name + "\" has no permits held, so none can be taken back: acquire some"
                    + " first.");
        }
        for (String owner : owners) {
            managers.stream().filter(candidate -> candidate.owns(owner)).findFirst()
                    .ifPresent(manager -> manager.tellPermitLoss(name, owner));
        }
        return owners.size();
    }

    /**
     * The permits {@code owner} (a {@link io.github.mongolock.PermitHold#owner()}) holds of the semaphore {@code name}
     * are taken back now, as an operator's {@code LockAdmin.forceReleasePermits} takes them from MongoDB: they are free
     * for others at once, and the holder's session is told to check. When the holder's manager is one of this factory's,
     * this returns only once that manager has told the holder, as it would at its next renewal: {@code isHeld()} is
     * false, its {@code onLeaseLost} actions have run, then its listeners got a {@code LEASE_LOST}
     * {@link io.github.mongolock.PermitEvent}; its next {@code close()} throws {@link io.github.mongolock.LockLostException}.
     *
     * @throws LockException when {@code owner} holds no permit of {@code name}
     */
    public void losePermits(String name, String owner) {
        LockArguments.checkName(name);
        Objects.requireNonNull(owner, "owner");
        if (!((InMemoryPermits) store.permitStore().orElseThrow()).forceRelease(name, owner)) {
            throw new LockException("Semaphore \"" + name + "\" has no permits held by " + owner
                    + ", so they cannot be lost: pass the owner() of a hold that is open.");
        }
        managers.stream().filter(candidate -> candidate.owns(owner)).findFirst()
                .ifPresent(found -> found.tellPermitLoss(name, owner));
    }

    /**
     * Every holder of the read-write lock {@code name}, readers and writer alike, loses its access now, as when other
     * instances found the holders' sessions unrenewed, ended them and took their holds back: the lock is free at once, for
     * anyone, and the next grant carries the next fencing token. Each holder of this factory's managers is told before
     * this returns: its {@code isHeld()} is false, its {@link io.github.mongolock.ReadWriteHold#onLeaseLost onLeaseLost}
     * actions have run, and the close that gives the access back throws {@link io.github.mongolock.LockLostException}.
     *
     * @return how many grants were taken back (a caller's nested holds of one mode share one grant)
     * @throws LockException when nobody holds {@code name}
     */
    public int takeBackReadWrite(String name) {
        List<String> owners = store.takeBackReadWrite(LockArguments.checkName(name));
        if (owners.isEmpty()) {
            throw new LockException("Read-write lock \"" + name + "\" is not held, so nothing can be taken back: acquire it"
                    + " first.");
        }
        for (String owner : owners) {
            managers.stream().filter(candidate -> candidate.owns(owner)).findFirst()
                    .ifPresent(manager -> manager.tellPermitLoss(name, owner));
        }
        return owners.size();
    }

    /** Closes every manager built here (each releases what it holds); idempotent. Building another then fails. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        LockException failures = null;
        for (InMemoryLockManager manager : managers) {
            try {
                manager.close();
            } catch (LockException failed) {
                if (failures == null) {
                    failures = new LockException("Closing the in-memory lock managers failed; see the suppressed exceptions.");
                }
                failures.addSuppressed(failed);
            }
        }
        managers.clear();
        if (failures != null) {
            throw failures;
        }
    }

    /** Makes the manager one of this factory's, or closes it when the factory is closed already. */
    InMemoryLockManager register(InMemoryLockManager manager) {
        synchronized (this) {
            if (!closed) {
                managers.add(manager);
                return manager;
            }
        }
        manager.close();
        throw new LockException("This InMemoryLocks is closed: create a new one to build lock managers.");
    }

    String nextInstanceId() {
        return "memory-" + built.incrementAndGet();
    }

    /** Tells the holder's manager, if it is one of ours and open (another owner's is nobody to tell). */
    private void tellHolder(String name, String holder) {
        Optional<InMemoryLockManager> manager = managers.stream().filter(candidate -> candidate.owns(holder)).findFirst();
        manager.ifPresent(found -> found.tellLoss(name, holder));
    }

    private static LockException notHeld(String name, String what) {
        return new LockException("Lock \"" + name + "\" is not held, so it cannot " + what
                + ": acquire it first (inspect(name) shows who holds it).");
    }
}
