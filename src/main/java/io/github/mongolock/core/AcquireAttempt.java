package io.github.mongolock.core;

import java.time.Duration;
import java.util.Optional;

/** The outcome of one {@link LockStore#tryAcquire} call. */
public sealed interface AcquireAttempt {

    /**
     * The lock is now the caller's, with one hold. {@code version} is the document's version after
     * the change; {@code leaseId} identifies this acquisition's lease uniquely (renewals name it).
     */
    record Granted(long fencingToken, long version, String leaseId) implements AcquireAttempt {
    }

    /**
     * Another owner holds the lock. {@code holder} and {@code remainingLease} (by the store's clock)
     * are given when the store learned them on the way; they only tune the waiter's backoff.
     */
    record Busy(Optional<String> holder, Optional<Duration> remainingLease) implements AcquireAttempt {
        public static Busy unknown() {
            return new Busy(Optional.empty(), Optional.empty());
        }
    }
}
