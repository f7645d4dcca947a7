package io.github.mongolock.core;

import java.util.Optional;

/** The outcome of one {@link LockStore#tryAcquire}, {@link LockStore#takeOver} or {@link LockStore#handOver} call. */
public sealed interface AcquireAttempt {

    /**
     * The lock is now the caller's, with one hold. {@code version} is the document's version after
     * the change; {@code leaseId} identifies this acquisition's lease uniquely (renewals name it).
     */
    record Granted(long fencingToken, long version, String leaseId) implements AcquireAttempt {
    }

    /**
     * Another owner holds the lock, or it is free but queued for another manager. {@code sighting} is
     * what the store read of it, when it read it: the waiter's lease rule works on it; without one the
     * waiter just tries again. {@code queued}: the read showed the asking manager in the lock's queue of
     * waiting managers (false when unknown).
     */
    record Busy(Optional<Sighting> sighting, boolean queued) implements AcquireAttempt {
        public static Busy unknown() {
            return new Busy(Optional.empty(), false);
        }

        public static Busy seen(Sighting sighting, boolean queued) {
            return new Busy(Optional.of(sighting), queued);
        }

        public Optional<String> holder() {
            return sighting.map(Sighting::holder);
        }
    }
}
