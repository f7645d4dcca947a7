package io.github.mongolock.mongo;

import java.util.Objects;

/**
 * What {@link ReadWriteAdmin#forceRelease} did: it took {@code holder}'s read or write access back from the read-write
 * lock {@code before} showed, in one compare-and-set pinned to that version and to the holder's entry, and told the
 * holder's session. The holder keeps believing it holds the access until its manager's next session renewal (within a
 * third of its lease), whose check does not find it and reports it lost ({@code isHeld()} false, its
 * {@code onLeaseLost} actions, {@code LockLostException} from {@code close()}); when the session could not be told
 * ({@code sessionTold} false), at its session's periodic check. Others may take the access at once. Immutable.
 *
 * @param before      the read-write lock as read just before the pull (the version it was pinned to)
 * @param holder      the holder whose access was taken back
 * @param operator    who released it, as recorded ({@code revokedBy})
 * @param reason      why, as recorded ({@code revokedReason})
 * @param sessionTold whether the holder's session was told
 */
public record ForcedReadWriteRelease(ReadWriteState before, ReadWriteState.Holder holder, String operator, String reason,
                                     boolean sessionTold) {
    public ForcedReadWriteRelease {
        Objects.requireNonNull(before, "before");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(reason, "reason");
    }
}
