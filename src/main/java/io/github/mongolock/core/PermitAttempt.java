package io.github.mongolock.core;

import java.util.Optional;

/** The outcome of one {@link PermitStore#tryAcquire} or {@link PermitStore#reclaim}. */
public sealed interface PermitAttempt {

    /**
     * The permits are the caller's. {@code fencingToken} exceeds every earlier grant's of this semaphore;
     * {@code version} is the semaphore's version after the grant.
     */
    record Granted(long fencingToken, long version) implements PermitAttempt {
    }

    /**
     * Too few permits are free, or another manager is first in the queue. {@code seen}: the semaphore as read
     * with its holders' sessions, when it was read; the waiter watches those sessions for their leases.
     */
    record Busy(Optional<PermitHolders> seen) implements PermitAttempt {
        public static Busy unknown() {
            return new Busy(Optional.empty());
        }
    }
}
