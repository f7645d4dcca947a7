package io.github.mongolock.core;

import static io.github.mongolock.core.OwnedLocks.withoutInterrupt;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * The owner's compare-and-set of its hold count in the store (re-entry, release, and the last release that
 * keeps the lock for a minimum hold), and its repair when it misses: an earlier call whose answer was lost
 * may have moved the version, and {@link LockStore#resync} tells that apart from a lock that is not this
 * acquisition's any more. Its own class because that repair is the subtle part of re-entry and release, and
 * it decides alone when such a miss is a loss. Calls see no interrupt (the flag is restored). Thread-safe;
 * every method expects the caller to hold the lock's mutex.
 */
final class HoldCountChanges {

    private final LockStore store;
    private final MonotonicClock clock;
    private final LeaseLosses losses;

    HoldCountChanges(LockStore store, MonotonicClock clock, LeaseLosses losses) {
        this.store = store;
        this.clock = clock;
        this.losses = losses;
    }

    /**
     * The owner's compare-and-set from the version it last wrote to {@code holds} holds (0 frees the lock).
     * When it misses, either the lock is not this acquisition's any more, or an earlier call whose answer
     * was lost did move the version: {@link LockStore#resync} tells which, and in the second case sets
     * the count. A store failure is thrown and changes nothing here. Caller holds the mutex.
     *
     * @return the new version, or empty when the lock belongs to another acquisition now (recorded as lost)
     */
    OptionalLong changeHolds(HeldLock lock, int holds) {
        long version = lock.version;
        long keepNanos = holds == 0 ? lock.holdLeftNanos(clock.nanoTime()) : 0;
        if (keepNanos > 0) {
            return releaseKeeping(lock, version, keepNanos);
        }
        boolean moved;
        boolean interrupted = Thread.interrupted(); // withoutInterrupt, written out: no lambda on the hot path
        try {
            moved = holds > lock.holds
                    ? store.reenter(lock.name, lock.owner, version)
                    : store.release(lock.name, lock.owner, version, holds);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (moved) {
            return OptionalLong.of(version + 1);
        }
        return resynced(lock, holds);
    }

    /**
     * The last release of an acquisition whose minimum hold has {@code keepNanos} left: the lock stays
     * taken, unrenewed, for that long. The time left is counted from when this request is sent, and the
     * hold from when the grant's answer arrived, so the lock is kept at least the minimum after the grant.
     * A miss is repaired like any compare-and-set of the owner's; the repaired state is then released
     * the same way. Caller holds the mutex.
     */
    private OptionalLong releaseKeeping(HeldLock lock, long version, long keepNanos) {
        // Whole milliseconds, rounded up: the document counts in milliseconds, and rounding down would shorten the hold.
        Duration keep = Duration.ofMillis((keepNanos + 999_999) / 1_000_000);
        if (withoutInterrupt(() -> store.releaseKeeping(lock.name, lock.owner, version, keep))) {
            return OptionalLong.of(version + 1);
        }
        OptionalLong synced = resynced(lock, 1);
        if (synced.isEmpty()) {
            return synced;
        }
        long repaired = synced.getAsLong();
        Duration keepNow = Duration.ofMillis((lock.holdLeftNanos(clock.nanoTime()) + 999_999) / 1_000_000);
        boolean kept = withoutInterrupt(() -> keepNow.isZero()
                ? store.release(lock.name, lock.owner, repaired, 0)
                : store.releaseKeeping(lock.name, lock.owner, repaired, keepNow));
        if (!kept) {
            losses.lostInOwnCall(lock, "the lease had run out and another owner took the lock over");
            return OptionalLong.empty();
        }
        return OptionalLong.of(repaired + 1);
    }

    /** After a missed compare-and-set: sets the count if the lock is still this acquisition's, else records the loss. */
    private OptionalLong resynced(HeldLock lock, int holds) {
        OptionalLong synced = withoutInterrupt(() -> store.resync(lock.name, lock.owner, lock.leaseId, holds));
        if (synced.isEmpty()) {
            losses.lostInOwnCall(lock, "the lease had run out and another owner took the lock over");
        }
        return synced;
    }
}
