package io.github.mongolock;

/**
 * One hold of a lock, returned by every successful acquisition (fresh or re-entrant).
 *
 * <p>A session may be closed from any thread, which lets asynchronous code hand it around; the
 * hold is always released on behalf of the owner that acquired it. All methods are thread-safe.
 */
public interface LockSession extends AutoCloseable {

    /** The lock's name. */
    String name();

    /**
     * A number that grows with every fresh acquisition of this name, by any owner, and stays the
     * same when the owner re-enters. Pass it to the resource you protect so it can refuse writes
     * from a holder whose lease has been taken over (see README, "Fencing tokens").
     */
    long fencingToken();

    /** This owner's number of holds right after this acquisition: 1 for a fresh one, 2, 3, ... on re-entry. */
    int holdCount();

    /**
     * {@code false} once this session is closed, once the lease is known to be lost (a renewal or
     * an update found another owner), or once the lease could not be confirmed for a whole lease
     * time (MongoDB unreachable). A {@code true} answer is only as fresh as the last renewal.
     */
    boolean isHeld();

    /**
     * Releases this hold; the lock is freed when the owner's last hold is released. Idempotent.
     * Never releases another owner's lock.
     *
     * @throws LockLostException  on the first close after the lease was lost: the work done under
     *                            this session may have overlapped with another holder's
     * @throws LockStoreException when MongoDB could not be told; the lock then frees itself when
     *                            its lease ends, since it is no longer renewed (a lease that had
     *                            already gone unconfirmed is reported as {@link LockLostException},
     *                            with the store failure suppressed). Works on an interrupted thread too.
     */
    @Override
    void close();
}
