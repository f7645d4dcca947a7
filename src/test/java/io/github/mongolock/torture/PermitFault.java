package io.github.mongolock.torture;

/**
 * A kill or pause of a holder of permits ({@link PermitFaults}): the victim's process, the semaphore and holder
 * entry it was confirmed holding while stopped, and when the harness saw that entry gone from the semaphore
 * document (taken back by a waiter that ended the victim's session; for a pause, only a disappearance before the
 * SIGCONT counts: after it, the victim may have given them back itself).
 *
 * @param kind        KILL or PAUSE
 * @param process     the victim's process
 * @param semaphore   the semaphore of the entry it was picked for
 * @param owner       that entry's owner (one acquisition: the checker finds its section by it)
 * @param permits     the permits of that entry
 * @param at          just before the SIGSTOP
 * @param signalled   when {@code kill -STOP} had returned
 * @param until       the death time (kill), or the SIGCONT (pause)
 * @param reclaimedAt when the harness first saw the entry gone, or {@link FaultEvent#UNRECOVERED}
 */
record PermitFault(FaultEvent.Kind kind, String process, String semaphore, String owner, int permits, long at,
                   long signalled, long until, long reclaimedAt) {

    boolean reclaimed() {
        return reclaimedAt != FaultEvent.UNRECOVERED;
    }
}
