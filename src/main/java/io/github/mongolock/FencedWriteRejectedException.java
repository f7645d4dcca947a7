package io.github.mongolock;

/**
 * A fenced write ({@link io.github.mongolock.mongo.FencedCollection}) was refused by MongoDB: the
 * document carries a higher fencing token than the write's, so a later holder of the lock has already
 * read or written it. Nothing was written. It is a {@link LockLostException}: the holder that made the
 * write lost its lease (or wrote with a token that was out of date, or came from another lock), and the
 * work done under the lock since then was not protected. Stop that work; if it must still happen,
 * acquire the lock again and redo it from a fresh read.
 *
 * <p>{@link #lockName()} is the lock's name when the write was given a {@link LockSession}, and
 * {@code null} when it was given a bare token.
 */
public class FencedWriteRejectedException extends LockLostException {
    private static final long serialVersionUID = 1L;

    private final String namespace;
    private final String document;
    private final long fenceSeen;

    /**
     * @param lockName     the lock whose token was used, or {@code null} when only the token is known
     * @param fencingToken the token the write carried
     * @param namespace    {@code <database>.<collection>} written to
     * @param document     the refusing document's {@code _id}, as extended JSON (e.g. {@code {"_id": "acct-1"}})
     * @param fenceField   the field holding the document's fence
     * @param fenceSeen    the token the document carries, higher than {@code fencingToken}
     */
    public FencedWriteRejectedException(String lockName, long fencingToken, String namespace, String document,
                                        String fenceField, long fenceSeen) {
        super(lockName, fencingToken, "Write to " + namespace + " refused: document " + document + " carries fencing token "
                + fenceSeen + " in \"" + fenceField + "\", higher than this write's token " + fencingToken
                + (lockName == null ? "" : " (lock \"" + lockName + "\")")
                + ". A later holder of the lock has read or written it, so this holder's lease was lost; nothing was"
                + " written. Stop the work done under this lock; if it must still happen, acquire the lock again and"
                + " redo it from a fresh read.");
        this.namespace = namespace;
        this.document = document;
        this.fenceSeen = fenceSeen;
    }

    /** {@code <database>.<collection>} of the refused write. */
    public String namespace() {
        return namespace;
    }

    /** The refusing document's {@code _id}, as extended JSON. */
    public String document() {
        return document;
    }

    /** The token the document carries: the highest any holder has written or registered there. */
    public long fenceSeen() {
        return fenceSeen;
    }
}
