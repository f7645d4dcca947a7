package io.github.mongolock.mongo;

import java.util.Objects;

/**
 * What {@link LockAdmin#forceRelease} did: it freed the lock {@code before} showed held, in one compare-and-set on
 * its {@code owner} and {@code version}. The old holder learns it at its next renewal (within a third of its lease)
 * with this reason; the next grant gets a fencing token greater than {@code before.fencingToken()}. Immutable.
 *
 * @param before   the lock as read just before, the holder it freed
 * @param operator who released it, as recorded ({@code revokedBy})
 * @param reason   why, as recorded ({@code revokedReason})
 */
public record ForcedRelease(LockState before, String operator, String reason) {
    public ForcedRelease {
        Objects.requireNonNull(before, "before");
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(reason, "reason");
    }
}
