package io.github.mongolock.mongo;

import java.util.Objects;

/**
 * What {@link LockAdmin#forceRelease} did: it freed the lock {@code before} showed held, in one compare-and-set on
 * its {@code owner} and {@code version}, and told the holder's session. A forced release is an operator's override
 * of mutual exclusion: the old holder keeps believing it holds the lock ({@code isHeld()} true) until its manager's
 * next session renewal after the release (within a third of its lease, plus one store call), which then reports the
 * loss with this reason. When the session could not be told ({@code sessionTold} false, after
 * {@value LockAdmin#SIGNAL_ATTEMPTS} attempts), the holder learns it at its session's periodic check (every 60
 * renewals, about 20 leases) or when its session ends. The next grant gets a fencing token greater than
 * {@code before.fencingToken()}, so fenced writes of the old holder are refused once the next holder wrote. Immutable.
 *
 * @param before      the lock as read just before, the holder it freed
 * @param operator    who released it, as recorded ({@code revokedBy})
 * @param reason      why, as recorded ({@code revokedReason})
 * @param sessionTold whether the holder's session was told (true too for a lock held under no session: kept for a
 *                    minimum hold, or held by the previous version, whose holder learns it at its own renewal)
 */
public record ForcedRelease(LockState before, String operator, String reason, boolean sessionTold) {
    public ForcedRelease {
        Objects.requireNonNull(before, "before");
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(reason, "reason");
    }
}
