package io.github.mongolock.mongo;

import java.util.Objects;

/**
 * What {@link LockAdmin#forceReleasePermits} did: it took the permits of {@code holder} back from the semaphore
 * {@code before} showed, in one compare-and-set pinned to that version and told the holder's session. The holder
 * keeps believing it holds them ({@code isHeld()} true) until its manager's next session renewal after the release
 * (within a third of its lease, plus one store call), whose check does not find them and reports them lost
 * ({@code isHeld()} false, its {@code onLeaseLost} actions, {@code LockLostException} from {@code close()}). When
 * the session could not be told ({@code sessionTold} false), the holder learns it at its session's periodic check
 * (every 60 renewals, about 20 leases). The permits are free for others at once. Immutable.
 *
 * @param before      the semaphore as read just before the pull (the version it was pinned to)
 * @param holder      the holder whose permits were taken back
 * @param operator    who released them, as recorded ({@code revokedBy})
 * @param reason      why, as recorded ({@code revokedReason})
 * @param sessionTold whether the holder's session was told
 */
public record ForcedPermitRelease(PermitsState before, PermitsState.Holder holder, String operator, String reason,
                                  boolean sessionTold) {
    public ForcedPermitRelease {
        Objects.requireNonNull(before, "before");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(reason, "reason");
    }
}
