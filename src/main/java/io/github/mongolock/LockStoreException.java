package io.github.mongolock;

/** MongoDB could not be reached, timed out, or refused an operation. The cause is the driver's exception. */
public class LockStoreException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
