package io.github.mongolock.core;

import java.util.Optional;

/** The outcome of one {@link LockStore#tryAcquire} or {@link LockStore#takeOver} call. */
public sealed interface AcquireAttempt {

    /**
     * The lock is now the caller's, with one hold. {@code version} is the document's version after
     * the change; {@code leaseId} identifies this acquisition's lease uniquely (renewals name it).
     */
    record Granted(long fencingToken, long version, String leaseId) implements AcquireAttempt {
    }

    /**
     * Another owner holds the lock. {@code sighting} is what the store read of it, when it read it:
     * the waiter's lease rule works on it; without one the waiter just tries again.
     */
    record Busy(Optional<Sighting> sighting) implements AcquireAttempt {
        public static Busy unknown() {
            return new Busy(Optional.empty());
        }

        public static Busy seen(Sighting sighting) {
            return new Busy(Optional.of(sighting));
        }

        public Optional<String> holder() {
            return sighting.map(Sighting::holder);
        }
    }
}
