package io.github.mongolock;

/**
 * One hold of a lock, returned by every successful acquisition (fresh or re-entrant).
 *
 * <p><b>Who is inside.</b> A session is bound to the thread that acquired it: while it is open
 * there, an acquire of the same name on that thread is a nested call and re-enters (the hold count
 * grows, the fencing token stays), like {@link java.util.concurrent.locks.ReentrantLock}. Any other
 * caller, including the next task on the same pooled thread once the session was {@link #detach()
 * detached}, finds the lock busy. To hand a hold to other code (a pending {@code CompletionStage}, a
 * worker thread), {@link #detach()} it on the acquiring thread; the receiver may {@link #attach()} it
 * to its own thread if it makes nested acquires, and closes it from wherever it finishes.
 * {@code @Locked} methods that return an unfinished stage detach their hold by themselves.
 *
 * <p>A session may be closed from any thread; the hold is always released on behalf of the
 * acquisition that took it. All methods are thread-safe.
 */
public interface LockSession extends AutoCloseable {

    /** The lock's name. */
    String name();

    /**
     * A number that grows with every fresh acquisition of this name, by any owner, and stays the
     * same when the owner re-enters. Pass it to the resource you protect so it can refuse writes
     * from a holder whose lease has been taken over (see docs/jobs-and-leaders.md, "Fencing tokens").
     */
    long fencingToken();

    /** This owner's number of holds right after this acquisition: 1 for a fresh one, 2, 3, ... on re-entry. */
    int holdCount();

    /**
     * The owner id stored in MongoDB for this acquisition, {@code <instance-id>:<manager nonce>:<number>}:
     * unique per fresh acquisition and shared by its re-entrant holds ({@link LockInfo#owner()} shows it).
     */
    String owner();

    /**
     * Unbinds this session from the thread it is bound to: from then on, acquires of the same name on
     * that thread are other callers and find the lock busy instead of re-entering it. The lock stays
     * held, renewed, until the session is closed (from any thread). Idempotent.
     *
     * @return this session
     */
    LockSession detach();

    /**
     * Binds this session to the calling thread (unbinding it from any other), so nested acquires of the
     * same name made here re-enter it: for the worker that received a {@linkplain #detach() detached}
     * hold.
     *
     * @return this session
     * @throws LockException when the session is already closed
     */
    LockSession attach();

    /**
     * {@code false} once this session is closed, once the lease is known to be lost (a renewal or
     * an update found another owner), or once the lease could not be confirmed for a whole lease
     * time (MongoDB unreachable). A {@code true} answer is only as fresh as the last renewal.
     */
    boolean isHeld();

    /**
     * Runs {@code action} once if this acquisition's lease is found lost while this session is open:
     * on the manager's {@code mongolock-notices} thread when a renewal (or the lease's end passing
     * unconfirmed) finds it, on the owner's thread when its own re-entry or release does, and at once on
     * the calling thread when the loss is already known. Never run once the session is closed. For work
     * that must stop, e.g. {@code session.onLeaseLost(() -> job.cancel(true))}. Keep it short; an
     * exception it throws is logged.
     *
     * @return this session
     */
    LockSession onLeaseLost(Runnable action);

    /**
     * Releases this hold; the lock is freed when the owner's last hold is released (or, with a
     * {@linkplain LockOptions#holdAtLeast(java.time.Duration) minimum hold} not yet over, once that has
     * passed). Idempotent. Never releases another owner's lock.
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
