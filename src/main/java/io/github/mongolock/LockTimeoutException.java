package io.github.mongolock;

/** The lock was still held by another owner when the wait time ran out. Nothing is held. */
public class LockTimeoutException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;

    public LockTimeoutException(String lockName, String message) {
        super(message);
        this.lockName = lockName;
    }

    public String lockName() {
        return lockName;
    }
}
