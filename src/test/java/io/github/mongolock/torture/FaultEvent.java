package io.github.mongolock.torture;

/**
 * A fault the harness injected.
 *
 * @param kind    what was done
 * @param process the worker process concerned, if any
 * @param lock    the lock its victim held, if any
 * @param token   the victim's fencing token for that lock, or 0
 * @param at      when the fault began (nanoTime): SIGSTOP before a kill or a pause, or the outage start
 * @param until   when it ended (SIGCONT, database back), or {@code at} for a kill
 */
record FaultEvent(Kind kind, String process, String lock, long token, long at, long until) {

    enum Kind { KILL, PAUSE, OUTAGE }
}
