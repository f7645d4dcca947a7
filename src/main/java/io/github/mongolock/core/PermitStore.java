package io.github.mongolock.core;

import java.util.Optional;
import java.util.List;

/**
 * Where leased semaphores live: one record per semaphore name with its limit, the permits in use and who holds
 * them under which session (spec/PERMITS-DESIGN.md). Every method that changes a semaphore is one compare-and-set
 * on that record; a crashed holder's permits are taken back only after its session was ended by a compare-and-set
 * (an ended session never becomes live again). Permits are leased by the holder's session: nothing here is renewed
 * per permit. Implementations are thread-safe.
 */
public interface PermitStore {

    /**
     * Grants {@code permits} of {@code name} to {@code owner} under {@code session} if that many are free and no other
     * manager is first in the semaphore's queue; creates the semaphore with {@code limit} when it does not exist.
     *
     * @throws io.github.mongolock.LockConfigurationException when the semaphore exists with another limit (nothing written)
     */
    PermitAttempt tryAcquire(String name, int limit, int permits, String owner, String session);

    /**
     * Ends the session {@code stale} (which the caller watched unrenewed for its lease, or read as ended or missing)
     * by a compare-and-set, takes back every permit held under it, then tries {@link #tryAcquire} once. Busy when the
     * session turned out live (renewed since): the caller watches again.
     */
    PermitAttempt reclaim(String name, int limit, int permits, String owner, String session, PermitHolders.Seen stale);

    /**
     * Gives back the {@code permits} {@code owner} holds; false when it holds none any more (its session was ended
     * and its permits taken back). Also the clean-up of an attempt whose outcome is unknown.
     */
    boolean release(String name, String owner, int permits);

    /** Every hold of permits of any semaphore under {@code session}: the session check's answer. */
    List<HeldUnder> heldUnder(String session);

    /** {@code owner} holds {@code permits} of the semaphore {@code name}. */
    record HeldUnder(String name, String owner, int permits) {
    }

    /** The semaphore as stored now; empty when it was never created. */
    Optional<PermitHolders> inspect(String name);

    /**
     * Puts {@code manager} at the end of the semaphore's queue of waiting managers unless it is in it already; does
     * nothing when the semaphore does not exist. Moves no version: the queue never disturbs a grant's or a reclaim's
     * compare-and-set.
     */
    void joinQueue(String name, String manager);

    /** Takes {@code manager} out of the semaphore's queue (its last waiter gave up); wakes the other managers' waiters. */
    void leaveQueue(String name, String manager);

    /**
     * {@code manager}, first in the queue but with too few permits free for its waiter, shows that it still waits by
     * moving the semaphore's turn count; does nothing when it is not first.
     */
    void stillWaiting(String name, String manager);

    /**
     * Takes {@code head} out of the queue if it is still first with the same turn count the caller watched for the turn
     * grace: a head that crashed or stopped waiting (a live head is granted once there is room for it, and moves its
     * turn while there is not). Taking a queue place can never break the limit: this is about fairness alone.
     *
     * @return whether it was taken out
     */
    boolean dropStaleHead(String name, String head, long turn);
}
