package io.github.mongolock.torture;

/**
 * A fault the harness injected.
 *
 * @param kind    what was done
 * @param process the worker process concerned, if any
 * @param lock    the lock its victim held, if any
 * @param token   the victim's fencing token for that lock, or 0
 * @param at      when the fault began (nanoTime): just before the SIGSTOP of a kill or a pause, the outage
 *                start, or when a clock step's offset was written
 * @param signalled by when the victim was surely stopped: when {@code kill -STOP} had returned ({@code at} for
 *                  an outage); for a clock step, by when the database's clock surely followed the new offset
 * @param until   when it ended (SIGCONT, database back), the death time for a kill, or when the next clock
 *                step (or the return to the real time) was written
 * @param recoveredAt when the harness first saw the lock granted again (a larger token in the lock
 *                    document; after an outage, on any lock), or {@link #UNRECOVERED}; a clock step has
 *                    nothing to recover from and carries {@code signalled}
 * @param clockOffsetMillis for a clock step, the database clock's offset from the real time (positive:
 *                          ahead); 0 for the other kinds
 */
record FaultEvent(Kind kind, String process, String lock, long token, long at, long signalled, long until,
                  long recoveredAt, long clockOffsetMillis) {

    static final long UNRECOVERED = Long.MAX_VALUE;

    enum Kind { KILL, PAUSE, OUTAGE, CLOCK_STEP }

    /** A kill, a pause or an outage. */
    FaultEvent(Kind kind, String process, String lock, long token, long at, long signalled, long until,
               long recoveredAt) {
        this(kind, process, lock, token, at, signalled, until, recoveredAt, 0);
    }

    /** The database's clock held {@code offsetMillis} from the real time, surely from {@code effective} until {@code until}. */
    static FaultEvent clockStep(long offsetMillis, long written, long effective, long until) {
        return new FaultEvent(Kind.CLOCK_STEP, "", "", 0, written, effective, until, effective, offsetMillis);
    }

    boolean recovered() {
        return recoveredAt != UNRECOVERED;
    }

    /** Whether a lock could be lost to it and must be granted again (a clock step is judged by the safety rules alone). */
    boolean needsRecovery() {
        return kind != Kind.CLOCK_STEP;
    }

    /** Where recovery is counted from: the SIGSTOP of a kill or pause, or MongoDB's return after an outage. */
    long recoveryFrom() {
        return kind == Kind.OUTAGE ? until : at;
    }
}
