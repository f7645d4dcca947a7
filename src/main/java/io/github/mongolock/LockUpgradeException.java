package io.github.mongolock;

/**
 * A caller holding read access to a {@link ReadWriteLock} asked for write access: refused at once, never waiting, as
 * Curator's and Redisson's read-write locks refuse it (two callers upgrading at once would each wait for the other's
 * read for ever). Close the read holds first and acquire write, or acquire write first and then read (a downgrade).
 */
public class LockUpgradeException extends LockException {

    private static final long serialVersionUID = 1L;

    public LockUpgradeException(String message) {
        super(message);
    }
}
