package io.github.mongolock;

import io.github.mongolock.core.LockArguments;
import java.time.Duration;
import java.util.Objects;

/**
 * How one candidate takes part in an election: the lease of the election lock (how long a crashed
 * leader keeps the others waiting) and how often a candidate that is not leader tries to take the lock.
 * Immutable; each value is checked when it is set, and {@link LeaderElections#join} checks that the
 * poll interval is not longer than the lease.
 *
 * <pre>{@code
 * elections.join("billing", LeadershipOptions.defaults().leaseTime(Duration.ofSeconds(5)), listener);
 * }</pre>
 *
 * <p><b>Failover after a leader crashes</b> takes between 1.03 x lease and 1.03 x lease + 2 poll
 * intervals (another candidate first sees the dead leader's last renewal at a poll, and takes the lock
 * over at the first poll after it stayed unchanged for the lease plus 3 %). With the defaults (lease
 * 10 s, a poll every 2 s): about 10.3 to 14.3 s. Each poll of a candidate
 * costs two MongoDB round trips while the lock is held elsewhere; the leader makes none (its lock manager
 * renews the lease with all its other leases, every lease/3).
 */
public final class LeadershipOptions {

    /** The election lock's lease unless set. */
    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(10);
    /** The shortest poll interval allowed: a tighter loop would only load MongoDB. */
    public static final Duration MIN_POLL_INTERVAL = Duration.ofMillis(10);

    private static final LeadershipOptions DEFAULTS = new LeadershipOptions(DEFAULT_LEASE_TIME, null);

    private final Duration leaseTime;
    private final Duration pollInterval;

    private LeadershipOptions(Duration leaseTime, Duration pollInterval) {
        this.leaseTime = leaseTime;
        this.pollInterval = pollInterval;
    }

    /** Lease {@link #DEFAULT_LEASE_TIME}, a poll every fifth of the lease. */
    public static LeadershipOptions defaults() {
        return DEFAULTS;
    }

    /**
     * A copy whose election lock has a lease of {@code leaseTime}, {@code PT0.1S} to {@code P365D}.
     *
     * @throws LockConfigurationException naming the value, when it is null or out of range
     */
    public LeadershipOptions leaseTime(Duration leaseTime) {
        return new LeadershipOptions(LockArguments.checkLease(leaseTime, "leaseTime"), pollInterval);
    }

    /**
     * A copy whose candidate tries to take the lock every {@code pollInterval} while it is not leader; at
     * least {@link #MIN_POLL_INTERVAL}, and (checked by {@link LeaderElections#join}) at most the lease.
     *
     * @throws LockConfigurationException naming the value, when it is null or shorter than {@link #MIN_POLL_INTERVAL}
     */
    public LeadershipOptions pollInterval(Duration pollInterval) {
        if (pollInterval == null) {
            throw new LockConfigurationException("pollInterval must not be null: give a duration of at least "
                    + MIN_POLL_INTERVAL + ", e.g. PT2S.");
        }
        if (pollInterval.compareTo(MIN_POLL_INTERVAL) < 0) {
            throw new LockConfigurationException("pollInterval = " + pollInterval + " is too short: a candidate polls"
                    + " at most every " + MIN_POLL_INTERVAL + " (ISO-8601, e.g. PT2S; unset: a fifth of the lease).");
        }
        return new LeadershipOptions(leaseTime, pollInterval);
    }

    /** The election lock's lease. */
    public Duration leaseTime() {
        return leaseTime;
    }

    /** The poll interval: the one set, else a fifth of the lease (at least {@link #MIN_POLL_INTERVAL}). */
    public Duration pollInterval() {
        if (pollInterval != null) {
            return pollInterval;
        }
        Duration fifth = leaseTime.dividedBy(5);
        return fifth.compareTo(MIN_POLL_INTERVAL) < 0 ? MIN_POLL_INTERVAL : fifth;
    }

    /**
     * Checks what can only be checked once both values are known: a poll interval longer than the lease
     * would only slow failover down (the leader never polls; its lease is renewed every lease/3).
     *
     * @return these options
     * @throws LockConfigurationException naming both values
     */
    LeadershipOptions checked(String election) {
        if (pollInterval().compareTo(leaseTime) > 0) {
            throw new LockConfigurationException("Election \"" + election + "\": pollInterval = " + pollInterval()
                    + " is longer than leaseTime = " + leaseTime + ". A candidate must poll at least once per lease, or"
                    + " failover waits for its polls rather than for the lease: use a poll interval of at most the"
                    + " lease, e.g. a fifth of it (the default).");
        }
        return this;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LeadershipOptions that && leaseTime.equals(that.leaseTime)
                && Objects.equals(pollInterval, that.pollInterval);
    }

    @Override
    public int hashCode() {
        return Objects.hash(leaseTime, pollInterval);
    }

    @Override
    public String toString() {
        return "LeadershipOptions[leaseTime=" + leaseTime + ", pollInterval=" + pollInterval()
                + (pollInterval == null ? " (a fifth of the lease)" : "") + "]";
    }
}
