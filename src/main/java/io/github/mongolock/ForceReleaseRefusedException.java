package io.github.mongolock;

/**
 * An operator's forced release ({@link io.github.mongolock.mongo.LockAdmin#forceRelease}) changed nothing: the
 * lock was free, gone, or no longer held by the acquisition the operator saw (it was released, re-entered or
 * taken by someone else since it was read). Forcing a release only frees the exact holder that was looked at, so
 * that an operator never frees a newer holder by mistake. Inspect the lock again and decide on what it shows now.
 */
public class ForceReleaseRefusedException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;

    public ForceReleaseRefusedException(String lockName, String message) {
        super(message);
        this.lockName = lockName;
    }

    public String lockName() {
        return lockName;
    }
}
