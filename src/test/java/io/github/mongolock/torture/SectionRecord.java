package io.github.mongolock.torture;

/**
 * One critical section as a worker recorded it. Times are {@link System#nanoTime()} values, which
 * on Linux come from one monotonic clock shared by every process of the machine.
 *
 * @param process     the worker process that ran it (e.g. {@code w2.1}: worker slot 2, generation 1)
 * @param lock        the lock name
 * @param token       the fencing token of the acquisition
 * @param owner       the owner string the lock document carried
 * @param start       when {@code acquire} had returned
 * @param end         when the work was over (before {@code close()}), or the death time of a killed process
 * @param open        true when the process died inside the section's work (no end was written)
 * @param write       what happened to the fenced counter write
 * @param plainWrite  what happened to the unfenced counter write
 * @param heldAtEnd   {@code isHeld()} asked right after {@code end}
 * @param close       what {@code close()} did; NONE when the process died before or inside it
 * @param listenerLost whether a LEASE_LOST event for this token reached the worker's listener
 * @param askedAt     when the {@code acquire} call that granted it began (its wait started there)
 */
record SectionRecord(String process, String lock, long token, String owner, long start, long end, boolean open,
                     WriteOutcome write, WriteOutcome plainWrite, boolean heldAtEnd, CloseOutcome close,
                     boolean listenerLost, long askedAt) {

    /** A section whose acquire call is taken to have returned at once (histories that did not record it, fixtures). */
    SectionRecord(String process, String lock, long token, String owner, long start, long end, boolean open,
                  WriteOutcome write, WriteOutcome plainWrite, boolean heldAtEnd, CloseOutcome close,
                  boolean listenerLost) {
        this(process, lock, token, owner, start, end, open, write, plainWrite, heldAtEnd, close, listenerLost, start);
    }

    enum WriteOutcome {
        /** The counter took the write. */
        ACCEPTED,
        /** The fenced counter refused it: a later token had touched the counter. */
        FENCED,
        /** The counter's read showed a later token already: the write was not attempted. */
        STALE_READ,
        /** {@code isHeld()} was false, so the worker did not write. */
        SKIPPED,
        /** MongoDB failed (cut connection, outage): the outcome is unknown. */
        FAILED,
        /** The process died before it got there. */
        NONE
    }

    enum CloseOutcome { OK, LOST, STORE, OTHER, NONE }

    /** Whether the lock is known to have protected the section up to its end. */
    boolean protectedToEnd() {
        return open || heldAtEnd;
    }

    /** The worker learned the lease was lost: by {@code isHeld()}, the listener or {@link io.github.mongolock.LockLostException}. */
    boolean toldLost() {
        return !open && (!heldAtEnd || listenerLost || close == CloseOutcome.LOST);
    }

    /** The process died inside the section: in its work, or in {@code close()}. */
    boolean killedInside() {
        return close == CloseOutcome.NONE;
    }

    SectionRecord endedByDeath(long deathNanos) {
        return new SectionRecord(process, lock, token, owner, start, deathNanos, true, WriteOutcome.NONE,
                WriteOutcome.NONE, false, CloseOutcome.NONE, false, askedAt);
    }
}
