package io.github.mongolock;

/**
 * The thread was interrupted while it waited for a lock. It holds nothing from this call and its
 * interrupt flag is still set.
 */
public class LockInterruptedException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockInterruptedException(String message, Throwable cause) {
        super(message, cause);
    }
}
