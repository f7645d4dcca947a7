package io.github.mongolock.torture;

import java.util.List;

/**
 * What {@link HistoryChecker} found in one run. Times in nanoseconds; {@code -1} where nothing was measured.
 *
 * @param sections             critical sections recorded (including those of killed processes)
 * @param killedInside         sections whose process was killed inside them
 * @param toldLost             sections whose worker learned the lease was lost (isHeld, listener or LockLostException)
 * @param overlaps             protected sections into which a later-token section of the same lock started
 * @param tokenOrderViolations protected sections whose token is not above the previous one's in start order,
 *                             plus tokens handed out twice
 * @param lostUpdates          fenced counter: writes taken minus the value reached, over all locks
 * @param unfencedLostUpdates  the same for the plain counter that trusts the lock alone
 * @param locksHeldAtEnd       locks still held after the run, once a lease time had passed
 * @param pauseViolations      paused holders that were not told of the loss, or that disturbed the next holder
 * @param maxRecoveryNanos     the longest time from a fault to the next section on its lock (outage: on any lock)
 * @param maxRecoveryFromWatchNanos the same, counted from the later of the fault and the first waiter's arrival
 *                             at the lock (see {@link HistoryChecker}): what the lease rule bounds
 * @param unrecovered          faults after which the lock was never acquired again
 * @param maxIdleGapNanos      the longest time a lock stayed unused between two sections
 * @param storeFailures        acquires that threw {@link io.github.mongolock.LockStoreException}
 * @param maxStoreFailureNanos the longest of those calls among the ones that began while MongoDB was down (an outage)
 * @param takenFromLiveHolders sections, neither killed inside nor paused, into which the next grant of their lock
 *                             started (told or not): a lock taken from a holder that was running; asserted 0 where
 *                             nothing stops a holder from renewing (the clock scenario)
 * @param lifecycle            the figures of the lifecycle scenarios (managers closed, holds handed over)
 * @param leader               the figures of the leader election scenario ({@link LeaderFigures#NONE} elsewhere)
 * @param killVictims          the processes killed: how many locks each held, how long until the last was granted again
 * @param pauseVictims         the same for the processes paused
 * @param problems             the first violations, described for a person
 */
record CheckReport(int sections, int killedInside, int toldLost, int overlaps, int tokenOrderViolations,
                   long lostUpdates, long unfencedLostUpdates, int locksHeldAtEnd, int pauseViolations,
                   long maxRecoveryNanos, long maxRecoveryFromWatchNanos, int unrecovered, long maxIdleGapNanos, int storeFailures,
                   long maxStoreFailureNanos, int takenFromLiveHolders, LifecycleFigures lifecycle,
                   LeaderFigures leader, VictimFigures killVictims, VictimFigures pauseVictims, List<String> problems) {

    /**
     * The victims of one kind of fault (kills, or pauses) and their locks, as {@link RecoveryChecker} judges them.
     *
     * @param victims                    the faults of that kind
     * @param minLocksHeld               the fewest locks a victim held at its stop, as the harness recorded them
     * @param maxLocksHeld               the most
     * @param locksHeld                  all of them, summed over the victims: each a recovery judged on its own,
     *                                   but for the grants never received
     * @param maxLastGrantNanos          the longest time from a victim's SIGSTOP until the last of its locks was
     *                                   granted again, or -1
     * @param maxLastGrantFromWatchNanos the same, counted from the later of the SIGSTOP and the first waiter's
     *                                   arrival at any of its locks, or -1
     * @param grantsNeverReceived        of a paused victim's locks, those whose grant landed with the acquire still
     *                                   on the wire at the SIGSTOP and whose answer came too late to be believed: the
     *                                   victim never held them ({@link RecoveryChecker#grantNeverReceived})
     */
    record VictimFigures(int victims, int minLocksHeld, int maxLocksHeld, int locksHeld, long maxLastGrantNanos,
                         long maxLastGrantFromWatchNanos, int grantsNeverReceived) {

        static final VictimFigures NONE = new VictimFigures(0, 0, 0, 0, -1, -1, 0);
    }

    /**
     * What {@link LeaderChecker} found.
     *
     * @param answers         yes answers recorded (each worker writes a sample of its own, see {@link LeaderHistory})
     * @param terms           terms that answered yes
     * @param doubleLeaders   pairs of terms (or processes sharing one term) that surely answered yes at the same time
     * @param termOrderViolations pairs of terms where the smaller surely answered yes after the larger
     * @param failovers       kills and pauses of a leader after which a larger term was seen
     * @param unrecovered     kills and pauses of a leader after which none was
     * @param maxKillFailoverNanos  the longest time from a leader's SIGSTOP before its kill -9 to the next term, or -1
     * @param maxPauseFailoverNanos the same for a leader paused, or -1
     * @param leaseLosses     terms revoked for a lost lease while their process ran (not paused, not killed)
     * @param toldLate        those whose revoked callback came after the next term's first yes answer
     */
    record LeaderFigures(int answers, int terms, int doubleLeaders, int termOrderViolations, int failovers,
                         int unrecovered, long maxKillFailoverNanos, long maxPauseFailoverNanos, int leaseLosses,
                         int toldLate) {

        static final LeaderFigures NONE = new LeaderFigures(0, 0, 0, 0, 0, 0, -1, -1, 0, 0);

        long maxFailoverNanos() {
            return Math.max(maxKillFailoverNanos, maxPauseFailoverNanos);
        }
    }

    /**
     * What {@link LifecycleChecker} found.
     *
     * @param managerCloses        lock managers closed by their workers, each checked in MongoDB right after
     * @param sectionsCutByClose   sections of a manager that were under way while it was closing
     * @param sectionsPastClose    those that ended after the close returned (each must have seen isHeld() false)
     * @param closedWaiters        acquires that failed because their manager was closed
     * @param heldPastClose        locks MongoDB showed held by a manager right after its close() returned, plus
     *                             sections still protected (isHeld true) after their manager's close() returned
     * @param handovers            holds acquired by one pool task and finished by another
     * @param crossThreadHandovers those finished on another thread than the one that acquired them
     * @param detachedRetries      acquires on a thread that had detached a still open hold of the same name
     * @param detachedRefused      those that found the lock busy to the end of their wait
     * @param unexpectedReentries  acquires that let a caller that did not nest into an existing hold
     * @param missedReentries      nested acquires of an attached hold that did not re-enter it
     * @param foreignExceptions    exceptions outside the LockException hierarchy that reached a caller
     */
    record LifecycleFigures(int managerCloses, int sectionsCutByClose, int sectionsPastClose, int closedWaiters, int heldPastClose,
                            int handovers, int crossThreadHandovers, int detachedRetries, int detachedRefused,
                            int unexpectedReentries, int missedReentries, int foreignExceptions) {
    }

    int heldPastClose() {
        return lifecycle.heldPastClose();
    }

    int unexpectedReentries() {
        return lifecycle.unexpectedReentries();
    }
}
