package io.github.mongolock;

/** Why a {@link Leadership} stopped being leader: passed to {@link LeadershipListener#revoked}. */
public enum RevocationReason {
    /**
     * The election lock's lease was lost: no renewal reached MongoDB for a whole lease time (the lease
     * ended unconfirmed), or MongoDB answered that the lock belongs to another owner now. Told when the
     * lease ends, which is before any other candidate can take the lock over.
     */
    LEASE_LOST,
    /** {@link Leadership#stepDown()} gave the term up; the candidate stays in the election. */
    STEPPED_DOWN,
    /** The candidate left the election: {@link Leadership#close()}, {@link LeaderElections#close()}, or the CDI application stopping. */
    LEFT
}
