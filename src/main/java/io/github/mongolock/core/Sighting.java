package io.github.mongolock.core;

import java.time.Duration;
import java.util.Objects;

/**
 * What one read saw of a lock held by another owner, for the waiter's lease rule: the holder is gone
 * once the lock has stayed in exactly this state for the holder's lease (plus a drift margin) on the
 * waiter's own monotonic clock. See {@link LeaseWatch}.
 *
 * @param state         the document's exact state, opaque to the coordinator: two sightings are of an
 *                      unchanged lock only if their states are equal (any renewal, re-entry, release or
 *                      grant changes it); the store takes it back in {@link LockStore#takeOver}
 * @param holder        the holder's owner id, for messages
 * @param holderLease   the holder's lease length
 * @param endedLongAgo  take it now: the database's clock says the lease ended so long ago (at least a minute
 *                      and at least a lease) that no realistic clock error explains it (the fast path), or
 *                      that the minimum hold of a holder that already released it is over (nobody is inside)
 */
public record Sighting(Object state, String holder, Duration holderLease, boolean endedLongAgo) {
    public Sighting {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(holderLease, "holderLease");
    }
}
