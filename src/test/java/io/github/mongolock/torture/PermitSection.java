package io.github.mongolock.torture;

/**
 * One hold of permits as a worker of the {@code PERMITS} workload recorded it ({@link PermitsWorkload}). Times are
 * {@link System#nanoTime()} values of the machine's one monotonic clock, as for {@link SectionRecord}.
 *
 * @param process      the worker process (e.g. {@code w2.1})
 * @param semaphore    the semaphore's name
 * @param limit        its limit, as the worker asked for it
 * @param permits      how many permits this hold took (1 or 2)
 * @param token        the grant's fencing token
 * @param owner        the hold's owner id, as the semaphore document's holder entry carries it
 * @param askedAt      when the acquire call that granted it began
 * @param start        when {@code acquire} had returned (recorded before any work)
 * @param end          when the work was over (before {@code close()}), or the death time of a killed process
 * @param open         true when the process died inside the work (no end was written)
 * @param write        what happened to the fenced counter write of the semaphore's counter
 * @param heldAtEnd    {@code isHeld()} asked right after {@code end}
 * @param close        what {@code close()} did; NONE when the process died before or inside it
 * @param listenerLost whether the hold's {@code onLeaseLost} action ran
 */
record PermitSection(String process, String semaphore, int limit, int permits, long token, String owner, long askedAt,
                     long start, long end, boolean open, SectionRecord.WriteOutcome write, boolean heldAtEnd,
                     SectionRecord.CloseOutcome close, boolean listenerLost) {

    /** Believed held from its start to its end: still {@code isHeld()} right after its work, or killed inside it. */
    boolean protectedToEnd() {
        return open || heldAtEnd;
    }

    /** The worker learned the permits were lost: by {@code isHeld()}, {@code onLeaseLost} or {@link io.github.mongolock.LockLostException}. */
    boolean toldLost() {
        return !open && (!heldAtEnd || listenerLost || close == SectionRecord.CloseOutcome.LOST);
    }

    boolean killedInside() {
        return close == SectionRecord.CloseOutcome.NONE;
    }

    /** Whether it was under way (believed or not) at {@code nanos}: started at or before, not yet ended. */
    boolean activeAt(long nanos) {
        return start - nanos <= 0 && nanos - end < 0;
    }

    PermitSection withWork(long workEnd, SectionRecord.WriteOutcome outcome, boolean held) {
        return new PermitSection(process, semaphore, limit, permits, token, owner, askedAt, start, workEnd, false, outcome,
                held, SectionRecord.CloseOutcome.NONE, false);
    }

    PermitSection closed(SectionRecord.CloseOutcome outcome, boolean lost) {
        return new PermitSection(process, semaphore, limit, permits, token, owner, askedAt, start, end, false, write,
                heldAtEnd, outcome, lost);
    }

    PermitSection endedByDeath(long deathNanos) {
        return new PermitSection(process, semaphore, limit, permits, token, owner, askedAt, start, deathNanos, true,
                SectionRecord.WriteOutcome.NONE, false, SectionRecord.CloseOutcome.NONE, false);
    }
}
