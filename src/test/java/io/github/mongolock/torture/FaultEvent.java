package io.github.mongolock.torture;

import java.util.ArrayList;
import java.util.List;

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
 *                step (or the return to the real time) was written; a pause of one lock that nobody took
 *                over while its holder was stopped ends when its grant after the SIGCONT was seen
 * @param recoveredAt when the harness first saw the lock granted again (a larger token in the lock
 *                    document; after an outage, on any lock), or {@link #UNRECOVERED}; a clock step has
 *                    nothing to recover from and carries {@code signalled}
 * @param clockOffsetMillis for a clock step, the database clock's offset from the real time (positive:
 *                          ahead); 0 for the other kinds
 * @param alsoHeld the other locks the victim of a kill or pause held at the stop, where the harness
 *                 records them all ({@link Scenario#MANY_LOCKS}); empty elsewhere
 */
record FaultEvent(Kind kind, String process, String lock, long token, long at, long signalled, long until,
                  long recoveredAt, long clockOffsetMillis, List<HeldLock> alsoHeld) {

    static final long UNRECOVERED = Long.MAX_VALUE;

    enum Kind { KILL, PAUSE, OUTAGE, CLOCK_STEP }

    /** A lock the victim held at the stop, its token there, and when the harness first saw it granted again (or {@link #UNRECOVERED}). */
    record HeldLock(String lock, long token, long recoveredAt) {
    }

    FaultEvent {
        alsoHeld = List.copyOf(alsoHeld);
    }

    /** A kill, a pause or an outage. */
    FaultEvent(Kind kind, String process, String lock, long token, long at, long signalled, long until,
               long recoveredAt) {
        this(kind, process, lock, token, at, signalled, until, recoveredAt, 0, List.of());
    }

    /** A kill or a pause of a process that held {@code held} (at least one lock): the first is the event's own lock. */
    static FaultEvent ofVictim(Kind kind, String process, List<HeldLock> held, long at, long signalled, long until) {
        HeldLock first = held.get(0);
        return new FaultEvent(kind, process, first.lock(), first.token(), at, signalled, until, first.recoveredAt(), 0,
                held.subList(1, held.size()));
    }

    /** How many locks its victim held at the stop, as recorded: 0 for an outage or a clock step. */
    int locksHeld() {
        return lock.isEmpty() ? 0 : 1 + alsoHeld.size();
    }

    /**
     * This fault seen from each lock its victim held, each with that lock's token and grant: itself where it
     * records one lock, else a copy per lock (the first being its own lock), each judged by the per-lock rules.
     */
    List<FaultEvent> perLock() {
        if (alsoHeld.isEmpty()) {
            return List.of(this);
        }
        List<FaultEvent> each = new ArrayList<>(locksHeld());
        each.add(new FaultEvent(kind, process, lock, token, at, signalled, until, recoveredAt));
        for (HeldLock held : alsoHeld) {
            each.add(new FaultEvent(kind, process, held.lock(), held.token(), at, signalled, until, held.recoveredAt()));
        }
        return each;
    }

    /** The database's clock held {@code offsetMillis} from the real time, surely from {@code effective} until {@code until}. */
    static FaultEvent clockStep(long offsetMillis, long written, long effective, long until) {
        return new FaultEvent(Kind.CLOCK_STEP, "", "", 0, written, effective, until, effective, offsetMillis, List.of());
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

    /** As a record prints itself, the other locks held counted rather than listed (a few hundred would fill a screen). */
    @Override
    public String toString() {
        return "FaultEvent[kind=" + kind + ", process=" + process + ", lock=" + lock + ", token=" + token + ", at=" + at
                + ", signalled=" + signalled + ", until=" + until + ", recoveredAt=" + recoveredAt + ", clockOffsetMillis="
                + clockOffsetMillis + (alsoHeld.isEmpty() ? "" : ", and " + alsoHeld.size() + " other locks held") + "]";
    }
}
