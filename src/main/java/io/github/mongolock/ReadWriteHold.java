package io.github.mongolock;

/**
 * Read or write access to a {@link ReadWriteLock}, held by one acquisition. Closing it ends this acquisition: the last
 * open one of a caller's nested acquisitions of a mode gives that mode back. May be closed from any thread; close is
 * idempotent. All methods are thread-safe.
 */
public interface ReadWriteHold extends AutoCloseable {

    /** Read or write. */
    enum Mode { READ, WRITE }

    /** The lock's name. */
    String name();

    /** Which access this hold is. */
    Mode mode();

    /**
     * The token of the grant behind this hold (a re-entry shares its outer hold's): greater than every earlier grant's
     * of this lock, reads and writes alike. Pass a write's token to the resource it protects.
     */
    long fencingToken();

    /** The owner id stored in MongoDB for the grant behind this hold, {@code <instance-id>:<manager nonce>:rw<n>}. */
    String owner();

    /** How many of the caller's nested acquisitions of this mode are open now, this one included while it is. */
    int holdCount();

    /**
     * {@code false} once closed, once the access is known to be taken back (the holder's session was ended by another
     * manager, or a check did not find it), or once the session's lease could not be confirmed for a whole lease.
     */
    boolean isHeld();

    /**
     * Runs {@code action} once if the lease of this access is found lost while it is open: on the manager's notice
     * thread, or at once when the loss is already known.
     *
     * @return this hold
     */
    ReadWriteHold onLeaseLost(Runnable action);

    /**
     * Ends this acquisition; the caller's last open one of this mode gives the access back. Idempotent.
     *
     * @throws LockLostException  on the close that gives back access whose lease was lost
     * @throws LockStoreException when MongoDB could not be told; the manager's session checks then give it back
     */
    @Override
    void close();
}
