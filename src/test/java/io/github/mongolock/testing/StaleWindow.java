package io.github.mongolock.testing;

import java.time.Duration;
import java.util.Objects;

/**
 * What an election of {@link ReplicaSetFaults} does to reads: for {@code length} after it, the reads it covers are
 * answered from {@code snapshot} instead of the current data. Writes always apply to the current data.
 *
 * @param snapshot  the data the new primary answers from; null for an election without stale reads
 * @param staleness which reads are stale
 */
public record StaleWindow(ReplicaSnapshot snapshot, Duration length, Staleness staleness) {

    /** Which reads a stale window answers from its snapshot. */
    public enum Staleness {
        /**
         * Reads with read concern {@code majority} (not causally consistent ones: those wait for their cluster
         * time): a primary elected moments ago serves them from a snapshot older than writes a majority already
         * acknowledged until it learns the commit point (SERVER-53813, fixed in 8.0). Local reads see its latest data.
         */
        MAJORITY_READS,
        /** Every read: a deposed primary that does not know it yet answers from its old data (SERVER-89619). */
        ALL_READS
    }

    /** An election that only rolls back: no read is stale after it. */
    public static final StaleWindow NONE = new StaleWindow(null, Duration.ZERO, Staleness.MAJORITY_READS);

    public StaleWindow {
        Objects.requireNonNull(length, "length");
        Objects.requireNonNull(staleness, "staleness");
        if (length.isNegative() || snapshot == null && !length.isZero()) {
            throw new IllegalArgumentException("a stale window needs a snapshot and a length of zero or more: " + length);
        }
    }

    /** Majority reads answered from {@code snapshot} for {@code length}. */
    public static StaleWindow majorityReads(ReplicaSnapshot snapshot, Duration length) {
        return new StaleWindow(Objects.requireNonNull(snapshot, "snapshot"), length, Staleness.MAJORITY_READS);
    }

    /** Every read answered from {@code snapshot} for {@code length}. */
    public static StaleWindow allReads(ReplicaSnapshot snapshot, Duration length) {
        return new StaleWindow(Objects.requireNonNull(snapshot, "snapshot"), length, Staleness.ALL_READS);
    }

    /** Whether a read of this window's snapshot is stale under it (its collection covered, its concern included). */
    boolean covers(WireCommand read) {
        return snapshot != null && read.isRead() && snapshot.covers(read.database(), read.collection()) && !read.causal()
                && (staleness == Staleness.ALL_READS || read.readConcern().equals("majority"));
    }
}
