package io.github.mongolock.core;

import io.github.mongolock.LockInfo;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The storage SPI: each method is one atomic attempt against the store (one or a few round trips),
 * never a wait. Waiting, re-entrancy bookkeeping, renewal scheduling and the decision to take a lock
 * over live in {@link LockCoordinator}, written once for every store.
 *
 * <p>Every method that changes a lock must filter on the lock's name <em>and</em> its owner (or, for a
 * takeover, the exact state a waiter saw), and the hold-count changes must also filter on the version
 * the caller last saw: a holder whose lease was taken over must never alter the new holder's lock.
 * No clock of the store's decides who holds a lock.
 *
 * <p><b>Sessions.</b> A lock is held under a <em>session</em> of its manager ({@link #openSession}), and the
 * manager renews the session, never the lock: one single-document write per renewal interval however many locks
 * it holds. A waiter that finds a lock held watches the lock together with its session; once both stayed the same
 * for the session's lease on its own clock ({@link LeaseWatch}) it may take the lock over, and the store's
 * {@link #takeOver} first <em>ends the session</em> by a compare-and-set on the state watched, then takes the lock
 * by a compare-and-set on the lock's state. An ended session stays ended: no renewal matches it again, so one
 * expiry frees every lock of a dead manager, and its manager, whose renewal then misses, knows all of them lost.
 * Implementations are thread-safe and throw {@link io.github.mongolock.LockStoreException} when the
 * store cannot be reached or refuses an operation.
 *
 * <p><b>Fairness.</b> Owner ids are {@code <manager id>:<n>} ({@link #managerOf}). Each lock keeps a
 * queue of the managers waiting for it, in arrival order: a free lock whose queue is not empty may be
 * taken by {@link #tryAcquire} only for the manager at its head, and every grant removes the grantee's
 * manager from the queue. The queue never changes what waiters watch (see docs/fairness.md).
 */
public interface LockStore {

    /** The manager an owner id belongs to: the id without its last {@code :<n>}. */
    static String managerOf(String owner) {
        int last = owner.lastIndexOf(':');
        return last < 0 ? owner : owner.substring(0, last);
    }

    /**
     * Takes {@code name} for {@code owner} under {@code session} if it is free (and its queue is empty or headed
     * by the owner's manager) or never created: one hold, a fencing token one greater than the previous one.
     * Otherwise answers {@link AcquireAttempt.Busy} with a {@link Sighting} of the
     * lock's exact state (for a free lock queued for another manager, including the queue's head).
     */
    AcquireAttempt tryAcquire(String name, String owner, String session);

    /** Adds {@code manager} to the end of the lock's queue unless it is in it already; changes nothing else. */
    void joinQueue(String name, String manager);

    /** Removes {@code manager} from the lock's queue, if there; changes nothing else. */
    void leaveQueue(String name, String manager);

    /**
     * Gives the lock, in one atomic change, from {@code owner} (if it is still {@code owner}'s at
     * {@code version}, with one hold) to a new acquisition {@code newOwner} of the same manager: one
     * hold, a new lease id, a fencing token one greater, held under {@code session}. A release and a
     * grant in one round trip.
     *
     * @return the new acquisition's grant, or {@link AcquireAttempt.Busy#unknown()} when the lock is not
     *         {@code owner}'s at {@code version} any more (nothing changed)
     */
    AcquireAttempt handOver(String name, String owner, long version, String newOwner, String session);

    /**
     * Takes {@code name} for {@code owner} if it is still exactly in the state {@code sighting} saw
     * (nobody renewed, re-entered, released or took it meanwhile), as {@link #tryAcquire} would take a
     * free lock; a manager that headed a free lock's queue when it was sighted is removed from the queue
     * (it did not take its turn). The caller decides when that is allowed. A lock held under a session is taken
     * only once that session has ended: this call first ends it by a compare-and-set on the session's state the
     * sighting saw (unless the sighting already saw it ended), and answers {@link AcquireAttempt.Busy#unknown()}
     * when the session moved meanwhile.
     */
    AcquireAttempt takeOver(String name, String owner, String session, Sighting sighting);

    /** Adds one hold if the lock is still {@code owner}'s at {@code version}. */
    boolean reenter(String name, String owner, long version);

    /**
     * Removes one hold if the lock is still {@code owner}'s at {@code version}; with
     * {@code remainingHolds == 0} the lock becomes free (the document and its token stay). Only for an
     * acquisition whose grant was answered {@link AcquireAttempt.Granted}: a store may rely on that grant having
     * completed (the Mongo store's token floor does). An acquisition whose grant went unanswered is freed by
     * {@link #abandon}.
     */
    boolean release(String name, String owner, long version, int remainingHolds);

    /**
     * Releases the last hold of {@code owner} (if the lock is still {@code owner}'s at {@code version})
     * but leaves the lock taken for {@code keepFor} more: a minimum hold outliving its holder. The lock
     * becomes an acquisition nobody renews: a new lease id, a lease of {@code keepFor}, and the state
     * waiters watch moved, so that they take it over once it has stayed unchanged for {@code keepFor}
     * on their own clocks, as any lease that is not renewed. No clock of the store's is involved.
     *
     * @return false when the lock is not {@code owner}'s at {@code version} (nothing changed)
     */
    boolean releaseKeeping(String name, String owner, long version, Duration keepFor);

    /**
     * Sets the hold count of the acquisition ({@code owner}, {@code leaseId}) to {@code holds} whatever
     * the version, and moves the version on; {@code holds == 0} frees the lock. Only for the owner's own
     * repair after a re-entry or release whose outcome was unknown: its compare-and-set then misses
     * although the lock is still its own. Owner and lease id are unique per acquisition, so no other
     * acquisition's lock can be touched.
     *
     * @return the document's new version, or empty when the lock is not this acquisition's any more
     */
    OptionalLong resync(String name, String owner, String leaseId, int holds);

    /**
     * Frees {@code name} if {@code owner} holds it, whatever its version. Only for cleaning up after an
     * acquisition whose outcome is unknown (the store failed mid-call, or a session check found it held by an
     * owner its manager never learnt of): owners are unique per attempt, so a document with this owner can
     * only be that attempt's orphan.
     */
    void abandon(String name, String owner);

    /**
     * Starts a new session of {@code manager}, live, with a lease of {@code lease}: one write. Its lease counts
     * from when this call was sent. Session ids are unique; one whose outcome is unknown is never used.
     *
     * @return the new session's id
     */
    String openSession(String manager, Duration lease);

    /**
     * Restarts {@code session}'s lease if it is still live: one single-document, compare-and-set write that never
     * matches an ended session. {@link SessionRenewal#ENDED} when it has ended (every lock held under it is lost).
     */
    SessionRenewal renewSession(String session);

    /**
     * Ends {@code session} if it is still live, whatever its state: for its own manager (closing, or after its
     * lease ran out unconfirmed), so that waiters may take its locks at once instead of after a lease.
     */
    void endSession(String session);

    /**
     * Reads the locks held under {@code session} (for the renewer's check: locks an operator released, and locks
     * left under the session by requests whose outcome was unknown), and for each of {@code claims} not held any
     * more, the reason when the store knows it. Never changes anything.
     */
    SessionCheck checkSession(String session, Collection<LeaseClaim> claims);

    /**
     * How long after it was sent a request of this store may still be applied: its calls' bound (the Mongo store's
     * timeout, which the driver also sends as the server's time limit). A session checks its locks for at least
     * this long after a request with an unknown outcome, so that a late write is found. Zero for a store whose
     * requests are applied at once or never.
     */
    default Duration lateWritesWithin() {
        return Duration.ZERO;
    }

    /**
     * The lock as stored now if it is held and, by the database's clock, its lease has not run out:
     * a view for people (wall-clock times), never used to decide who holds a lock.
     */
    Optional<LockInfo> inspect(String name);

    /** The leased semaphores kept beside these locks, under the same sessions; empty when this store keeps none. */
    default Optional<PermitStore> permitStore() {
        return Optional.empty();
    }

    /** The leased read-write locks kept beside these locks, under the same sessions; empty when this store keeps none. */
    default Optional<ReadWriteStore> readWriteStore() {
        return Optional.empty();
    }
}
