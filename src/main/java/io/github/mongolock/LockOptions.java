package io.github.mongolock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Per-call wait and lease times; an unset value means "the manager's default". Immutable.
 *
 * <pre>{@code
 * locks.acquire("import-42", LockOptions.defaults().waitTime(Duration.ofSeconds(5)).leaseTime(Duration.ofMinutes(2)));
 * }</pre>
 */
public final class LockOptions {

    private static final LockOptions DEFAULTS = new LockOptions(null, null);

    private final Duration waitTime;
    private final Duration leaseTime;

    private LockOptions(Duration waitTime, Duration leaseTime) {
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
    }

    /** No overrides: the manager's wait and lease times apply. */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /** A copy that waits up to {@code waitTime} (zero: one attempt); checked when the lock is requested. */
    public LockOptions waitTime(Duration waitTime) {
        return new LockOptions(Objects.requireNonNull(waitTime, "waitTime"), leaseTime);
    }

    /** A copy whose lease lasts {@code leaseTime}; checked when the lock is requested. */
    public LockOptions leaseTime(Duration leaseTime) {
        return new LockOptions(waitTime, Objects.requireNonNull(leaseTime, "leaseTime"));
    }

    public Optional<Duration> waitTime() {
        return Optional.ofNullable(waitTime);
    }

    public Optional<Duration> leaseTime() {
        return Optional.ofNullable(leaseTime);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LockOptions that
                && Objects.equals(waitTime, that.waitTime)
                && Objects.equals(leaseTime, that.leaseTime);
    }

    @Override
    public int hashCode() {
        return Objects.hash(waitTime, leaseTime);
    }

    @Override
    public String toString() {
        return "LockOptions[waitTime=" + (waitTime == null ? "default" : waitTime)
                + ", leaseTime=" + (leaseTime == null ? "default" : leaseTime) + "]";
    }
}
