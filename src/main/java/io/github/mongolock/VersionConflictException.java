package io.github.mongolock;

/**
 * A versioned update ({@link io.github.mongolock.mongo.VersionedCollection}) gave up: on each of its attempts
 * another writer changed the document between this update's read and its write, and the allowed attempts
 * ran out. Nothing was written by the call. The document is contended: try again later, allow more attempts
 * or a longer backoff ({@link io.github.mongolock.mongo.ConflictRetries}), or let its writers take turns under
 * a lock ({@link LockManager}).
 */
public class VersionConflictException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String namespace;
    private final String document;
    private final int attempts;

    /**
     * @param namespace    {@code <database>.<collection>} written to
     * @param document     the document's {@code _id}, as extended JSON (e.g. {@code {"_id": "counter-1"}})
     * @param versionField the field holding the document's version
     * @param attempts     how many times the document was read, changed and written without success
     */
    public VersionConflictException(String namespace, String document, String versionField, int attempts) {
        super("Versioned update of document " + document + " in " + namespace + " gave up after " + attempts
                + (attempts == 1 ? " attempt" : " attempts") + ": each time another writer changed the document (its \""
                + versionField + "\") between this update's read and its write. Nothing was written by this call. The"
                + " document is contended: try again later, allow more attempts or a longer backoff (ConflictRetries),"
                + " or let its writers take turns under a lock (LockManager).");
        this.namespace = namespace;
        this.document = document;
        this.attempts = attempts;
    }

    /** {@code <database>.<collection>} of the update. */
    public String namespace() {
        return namespace;
    }

    /** The document's {@code _id}, as extended JSON. */
    public String document() {
        return document;
    }

    /** How many attempts were made: the change function ran this many times. */
    public int attempts() {
        return attempts;
    }
}
