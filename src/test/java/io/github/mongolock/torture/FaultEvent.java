package io.github.mongolock.torture;

/**
 * A fault the harness injected.
 *
 * @param kind    what was done
 * @param process the worker process concerned, if any
 * @param lock    the lock its victim held, if any
 * @param token   the victim's fencing token for that lock, or 0
 * @param at      when the fault began (nanoTime): just before the SIGSTOP of a kill or a pause, or the outage start
 * @param signalled by when the victim was surely stopped: when {@code kill -STOP} had returned ({@code at} for an outage)
 * @param until   when it ended (SIGCONT, database back), or the death time for a kill
 * @param recoveredAt when the harness first saw the lock granted again (a larger token in the lock
 *                    document; after an outage, on any lock), or {@link #UNRECOVERED}
 */
record FaultEvent(Kind kind, String process, String lock, long token, long at, long signalled, long until,
                  long recoveredAt) {

    static final long UNRECOVERED = Long.MAX_VALUE;

    enum Kind { KILL, PAUSE, OUTAGE }

    boolean recovered() {
        return recoveredAt != UNRECOVERED;
    }

    /** Where recovery is counted from: the SIGSTOP of a kill or pause, or MongoDB's return after an outage. */
    long recoveryFrom() {
        return kind == Kind.OUTAGE ? until : at;
    }
}
