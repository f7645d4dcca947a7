package io.github.mongolock;

/**
 * The lease of a held lock was lost: it ran out and another owner took the lock over, or it could
 * not be confirmed for a whole lease time. Work done under the lock since then was not protected.
 */
public class LockLostException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final long fencingToken;

    public LockLostException(String lockName, long fencingToken, String message) {
        super(message);
        this.lockName = lockName;
        this.fencingToken = fencingToken;
    }

    public String lockName() {
        return lockName;
    }

    /** The token of the acquisition whose lease was lost. */
    public long fencingToken() {
        return fencingToken;
    }
}
