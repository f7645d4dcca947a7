package io.github.mongolock;

import io.github.mongolock.core.LockArguments;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Per-call wait and lease times, minimum hold and what a lost lease does to the work; an unset wait or
 * lease time means "the manager's default". Immutable.
 *
 * <pre>{@code
 * locks.acquire("import-42", LockOptions.defaults().waitTime(Duration.ofSeconds(5)).leaseTime(Duration.ofMinutes(2)));
 * locks.tryAcquire("nightly-report", LockOptions.defaults().waitTime(Duration.ZERO).holdAtLeast(Duration.ofMinutes(5)));
 * }</pre>
 */
public final class LockOptions {

    private static final LockOptions DEFAULTS = new LockOptions(null, null, Duration.ZERO, OnLeaseLost.REPORT, null);

    private final Duration waitTime;
    private final Duration leaseTime;
    private final Duration holdAtLeast;
    private final OnLeaseLost onLeaseLost;
    private final String metricsGroup;

    private LockOptions(Duration waitTime, Duration leaseTime, Duration holdAtLeast, OnLeaseLost onLeaseLost,
                        String metricsGroup) {
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
        this.holdAtLeast = holdAtLeast;
        this.onLeaseLost = onLeaseLost;
        this.metricsGroup = metricsGroup;
    }

    /** No overrides: the manager's wait and lease times apply. */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /** A copy that waits up to {@code waitTime} (zero: one attempt); checked when the lock is requested. */
    public LockOptions waitTime(Duration waitTime) {
        return new LockOptions(Objects.requireNonNull(waitTime, "waitTime"), leaseTime, holdAtLeast, onLeaseLost, metricsGroup);
    }

    /** A copy whose lease lasts {@code leaseTime}; checked when the lock is requested. */
    public LockOptions leaseTime(Duration leaseTime) {
        return new LockOptions(waitTime, Objects.requireNonNull(leaseTime, "leaseTime"), holdAtLeast, onLeaseLost, metricsGroup);
    }

    /**
     * A copy whose fresh grant keeps the lock for at least {@code holdAtLeast} (counted from when the
     * grant reached this manager), even if the last hold is released earlier: the release then leaves
     * the lock taken, unrenewed, for the time that is left, and it frees itself when that has passed
     * (the document carries it, so neither a crash nor a restart of this process changes it). For
     * scheduled jobs run with {@code tryAcquire}: instances whose timers fire a little later find the
     * lock still taken and skip. Zero (the default) keeps nothing. Checked when the lock is requested:
     * zero up to 365 days. A re-entrant acquire can only lengthen the acquisition's minimum hold.
     */
    public LockOptions holdAtLeast(Duration holdAtLeast) {
        return new LockOptions(waitTime, leaseTime, Objects.requireNonNull(holdAtLeast, "holdAtLeast"), onLeaseLost,
                metricsGroup);
    }

    /**
     * A copy with the given policy for a lost lease: {@link OnLeaseLost#REPORT} (the default) or
     * {@link OnLeaseLost#INTERRUPT}.
     *
     * @throws LockConfigurationException for {@link OnLeaseLost#CANCEL}, which only {@code @Locked}
     *                                    methods returning a stage can use
     */
    public LockOptions onLeaseLost(OnLeaseLost onLeaseLost) {
        Objects.requireNonNull(onLeaseLost, "onLeaseLost");
        if (onLeaseLost == OnLeaseLost.CANCEL) {
            throw new LockConfigurationException("onLeaseLost CANCEL applies only to @Locked methods returning a"
                    + " CompletionStage: a LockSession has no stage to cancel. Use REPORT or INTERRUPT, or register"
                    + " your own action with LockSession.onLeaseLost(Runnable), e.g. () -> future.cancel(true).");
        }
        return new LockOptions(waitTime, leaseTime, holdAtLeast, onLeaseLost, metricsGroup);
    }

    /**
     * A copy whose metrics report this lock under {@code group} (e.g. {@code "account"} for
     * {@code "account-" + id}): keep the number of groups small, a time series is kept per group.
     * Unset: {@value LockMetrics#UNGROUPED}; {@code @Locked} methods use their name template.
     *
     * @throws LockConfigurationException when the group is blank or longer than 255 characters
     */
    public LockOptions metricsGroup(String group) {
        Objects.requireNonNull(group, "group");
        if (group.isBlank() || group.length() > 255) {
            throw new LockConfigurationException("metricsGroup " + LockArguments.quote(group) + " is not valid: a group must"
                    + " be 1 to 255 characters and not blank, e.g. \"account\" for the locks \"account-<id>\".");
        }
        return new LockOptions(waitTime, leaseTime, holdAtLeast, onLeaseLost, group);
    }

    public Optional<Duration> waitTime() {
        return Optional.ofNullable(waitTime);
    }

    public Optional<Duration> leaseTime() {
        return Optional.ofNullable(leaseTime);
    }

    /** The minimum hold; {@link Duration#ZERO} unless set. */
    public Duration holdAtLeast() {
        return holdAtLeast;
    }

    /** The metrics group, if set. */
    public Optional<String> metricsGroup() {
        return Optional.ofNullable(metricsGroup);
    }

    /** The policy for a lost lease; {@link OnLeaseLost#REPORT} unless set. */
    public OnLeaseLost onLeaseLost() {
        return onLeaseLost;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LockOptions that
                && Objects.equals(waitTime, that.waitTime)
                && Objects.equals(leaseTime, that.leaseTime)
                && holdAtLeast.equals(that.holdAtLeast)
                && onLeaseLost == that.onLeaseLost
                && Objects.equals(metricsGroup, that.metricsGroup);
    }

    @Override
    public int hashCode() {
        return Objects.hash(waitTime, leaseTime, holdAtLeast, onLeaseLost, metricsGroup);
    }

    @Override
    public String toString() {
        return "LockOptions[waitTime=" + (waitTime == null ? "default" : waitTime)
                + ", leaseTime=" + (leaseTime == null ? "default" : leaseTime) + ", holdAtLeast=" + holdAtLeast
                + ", onLeaseLost=" + onLeaseLost + (metricsGroup == null ? "" : ", metricsGroup=" + metricsGroup) + "]";
    }
}
