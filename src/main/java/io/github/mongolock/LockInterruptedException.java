package io.github.mongolock;

/**
 * The thread was interrupted while it waited for a lock, or while a versioned update
 * ({@link io.github.mongolock.mongo.VersionedCollection}) paused before a retry. It holds nothing from this call,
 * nothing was written by it, and its interrupt flag is still set.
 */
public class LockInterruptedException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockInterruptedException(String message, Throwable cause) {
        super(message, cause);
    }
}
