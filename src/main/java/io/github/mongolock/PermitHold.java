package io.github.mongolock;

/**
 * Permits of a {@link Permits} semaphore held by one acquisition. May be closed from any thread; closing gives
 * back exactly the permits this hold took. All methods are thread-safe.
 */
public interface PermitHold extends AutoCloseable {

    /** The semaphore's name. */
    String name();

    /** How many permits this hold has. */
    int permits();

    /**
     * Greater than every earlier grant's token of this semaphore, by any holder: pass it to the resource you protect
     * so it can refuse a holder whose permits were taken back (see {@code FencedCollection}).
     */
    long fencingToken();

    /** The owner id stored in MongoDB for this acquisition, {@code <instance-id>:<manager nonce>:p<number>}. */
    String owner();

    /**
     * {@code false} once closed, once the permits are known to be taken back (the holder's session was ended by
     * another manager, or a check did not find them), or once the session's lease could not be confirmed for a
     * whole lease (MongoDB unreachable). A {@code true} answer is only as fresh as the session's last renewal.
     */
    boolean isHeld();

    /**
     * Runs {@code action} once if this hold's lease is found lost while it is open: on the manager's notice thread,
     * or at once when the loss is already known. Never run once the hold is closed.
     *
     * @return this hold
     */
    PermitHold onLeaseLost(Runnable action);

    /**
     * Gives the permits back. Idempotent.
     *
     * @throws LockLostException  on the first close after the lease was lost
     * @throws LockStoreException when MongoDB could not be told; the manager's session checks then give them back
     *                            (or they come free when its session ends)
     */
    @Override
    void close();
}
