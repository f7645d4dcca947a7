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
 * @param unrecovered          faults after which the lock was never acquired again
 * @param maxIdleGapNanos      the longest time a lock stayed unused between two sections
 * @param storeFailures        acquires that threw {@link io.github.mongolock.LockStoreException}
 * @param maxStoreFailureNanos the longest of those calls among the ones that began while MongoDB was down (an outage)
 * @param problems             the first violations, described for a person
 */
record CheckReport(int sections, int killedInside, int toldLost, int overlaps, int tokenOrderViolations,
                   long lostUpdates, long unfencedLostUpdates, int locksHeldAtEnd, int pauseViolations,
                   long maxRecoveryNanos, int unrecovered, long maxIdleGapNanos, int storeFailures,
                   long maxStoreFailureNanos, List<String> problems) {
}
