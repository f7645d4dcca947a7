package io.github.mongolock.core;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sessions holding permits, as this manager's waiters saw them, for the whole manager: a session whose beat stayed
 * the same for its lease plus the drift margin on this manager's monotonic clock ({@link LeaseWatch#takeoverAfterNanos})
 * is due to be ended, whichever of the manager's calls saw it first and whichever sees it last. Kept per call, the
 * watch would start again with every call that returned meanwhile: on a semaphore whose other permits keep being given
 * and taken, no single call waits a whole lease, and a dead holder's permits stayed out of use (the torture's long
 * PERMITS_KILL run: 5.1 and 7.1 s where 2.3 were promised), and a retried {@code tryAcquire} never took them back
 * (RetriedTryAcquireTest). Locks keep their watch per name for the same reason ({@link LeaseWatch}). Thread-safe.
 */
final class HolderSessionWatch {

    /** Above this many sessions watched, those not seen for two of their leases are forgotten. */
    private static final int PRUNE_ABOVE = 1_000;

    private record Watched(Object beat, long sinceNanos, long lastSeenNanos, Duration lease) {
    }

    private final ConcurrentHashMap<String, Watched> watched = new ConcurrentHashMap<>();

    /**
     * Records a sighting of {@code session} with {@code beat} at {@code nowNanos}.
     *
     * @return true when the same beat was seen for the session's lease plus the margin: it may be ended
     */
    boolean unrenewed(String session, Object beat, Duration lease, long nowNanos) {
        Watched now = watched.compute(session, (key, before) -> before != null && before.beat().equals(beat)
                ? new Watched(beat, before.sinceNanos(), nowNanos, lease)
                : new Watched(beat, nowNanos, nowNanos, lease));
        if (watched.size() > PRUNE_ABOVE) {
            prune(nowNanos);
        }
        return nowNanos - now.sinceNanos() >= LeaseWatch.takeoverAfterNanos(now.lease());
    }

    /** How long until {@code session}, watched unrenewed, comes due (0 when due); a long time when it is not watched. */
    long nanosUntilDue(String session, long nowNanos) {
        Watched seen = watched.get(session);
        return seen == null ? Long.MAX_VALUE
                : Math.max(seen.sinceNanos() + LeaseWatch.takeoverAfterNanos(seen.lease()) - nowNanos, 0);
    }

    /**
     * Whether {@code session}, last seen with {@code beat}, is due now without looking again: watched with that very
     * beat for its lease plus the margin. Records nothing (a newer beat seen meanwhile by another call stays).
     */
    boolean dueWithout(String session, Object beat, long nowNanos) {
        Watched seen = watched.get(session);
        return seen != null && seen.beat().equals(beat)
                && nowNanos - seen.sinceNanos() >= LeaseWatch.takeoverAfterNanos(seen.lease());
    }

    /** The session was ended (or is being): the next sighting starts a new watch. */
    void forget(String session) {
        watched.remove(session);
    }

    private void prune(long nowNanos) {
        watched.entrySet().removeIf(entry -> nowNanos - entry.getValue().lastSeenNanos()
                > 2 * LockArguments.saturatedNanos(entry.getValue().lease()));
    }
}
