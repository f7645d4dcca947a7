package io.github.mongolock.mongo;

import io.github.mongolock.LockConfigurationException;
import org.bson.Document;

/**
 * What one {@link VersionedCollection} update wrote, and what it cost.
 *
 * @param document the document as this update stored it: {@code _id}, the change's fields, the new version and
 *                 the fence, if any. Computed from what was written, not read back. A fresh copy the caller owns:
 *                 changing it changes nothing stored
 * @param version  the version written: the version read plus one, or 1 for an inserted document
 * @param attempts how many times the document was read, changed and written, this successful time included: the
 *                 change function ran this many times
 * @param inserted whether the document did not exist and this update created it
 */
public record VersionedUpdate(Document document, long version, int attempts, boolean inserted) {

    public VersionedUpdate {
        if (document == null || attempts < 1) {
            throw new LockConfigurationException("A versioned update stores a document and takes at least one attempt;"
                    + " got document " + document + " and attempts " + attempts + ".");
        }
    }

    /** The attempts that lost to another writer and were retried: {@code attempts() - 1}. */
    public int conflicts() {
        return attempts - 1;
    }
}
