package io.github.mongolock;

/** The root of every exception mongolock throws; unchecked. Messages name the lock and say what to do. */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LockException(String message) {
        super(message);
    }

    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
