package io.github.mongolock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The waiter's side of the lease: when a lock held by another owner may be taken over, decided by
 * elapsed time on this machine's monotonic clock, never by a wall clock (the DynamoDB lock client's
 * rule, and what ZooKeeper and etcd do with sessions).
 *
 * <p>A holder renews every lease/3, and every renewal changes the document's state. A waiter that has
 * seen the <em>same</em> state for {@code lease x (1 + DRIFT_MARGIN_PERCENT / 100)} since it first saw
 * it knows the holder stopped renewing at least a lease ago: the holder counts its lease from when
 * it <em>sent</em> its last renewal, which came before the waiter first saw that renewal's state. The
 * margin covers clocks that run at different rates: safe while any two machines' monotonic clocks
 * differ in rate by less than {@value #ASSUMED_MAX_DRIFT_PERCENT}% (NTP keeps them within 0.05%);
 * offsets and wall-clock steps play no part.
 *
 * <p>Sightings are kept per lock name for the coordinator's lifetime, across calls, so that a
 * {@code tryAcquire} retried every minute by a scheduled job also takes a dead holder's lock over.
 * Forgetting a sighting is always safe (it only delays a takeover), which bounds the memory: past
 * {@value #MAX_WATCHED} names, those not looked at for two takeover periods are dropped, and if that is not
 * enough (names from user input, a new one per request, held elsewhere for long leases), the least recently
 * seen ones, down to three quarters of the bound. Thread-safe.
 */
public final class LeaseWatch {

    /** How much longer than a lease a waiter watches an unchanged lock before taking it over. */
    static final int DRIFT_MARGIN_PERCENT = 3;
    /** The rate difference the margin is sized for: (1 + 1.4%) / (1 - 1.4%) < 1.03. */
    static final double ASSUMED_MAX_DRIFT_PERCENT = 1.4;
    static final int MAX_WATCHED = 10_000;

    private record Watched(Object state, long firstSeenNanos, long lastSeenNanos, long takeoverAfterNanos) {
    }

    private final ConcurrentHashMap<String, Watched> watched = new ConcurrentHashMap<>();
    /** One pruning at a time: the others carry on, the map is over its bound only briefly. */
    private final ReentrantLock pruning = new ReentrantLock();

    LeaseWatch() {
    }

    /**
     * Records a sighting made at {@code seenAtNanos} (taken after the read's answer arrived: the state
     * may have been written after the request was sent).
     *
     * @return nanoseconds until a takeover is allowed; zero or less: now
     */
    long untilTakeover(String name, Sighting sighting, long seenAtNanos) {
        long after = takeoverAfterNanos(sighting.holderLease());
        Watched now = watched.compute(name, (key, before) ->
                before != null && before.state().equals(sighting.state())
                        ? new Watched(before.state(), before.firstSeenNanos(), seenAtNanos, after)
                        : new Watched(sighting.state(), seenAtNanos, seenAtNanos, after));
        if (watched.size() > MAX_WATCHED && pruning.tryLock()) {
            try {
                prune(seenAtNanos);
            } finally {
                pruning.unlock();
            }
        }
        return sighting.endedLongAgo() ? 0 : now.firstSeenNanos() + after - seenAtNanos;
    }

    /** The lock was granted to us, or we stopped caring: the next sighting starts afresh. */
    void forget(String name) {
        watched.remove(name);
    }

    static long takeoverAfterNanos(Duration holderLease) {
        long lease = LockArguments.saturatedNanos(holderLease);
        long margin = lease / 100 * DRIFT_MARGIN_PERCENT;
        return lease > Long.MAX_VALUE - margin ? Long.MAX_VALUE : lease + margin;
    }

    /**
     * How long a lock must stay unchanged before a waiter may take it over: the holder's lease plus
     * the drift margin. Stores use it for the fast path too, so that a holder whose clock runs slow
     * (within the stated drift) is covered there as well (found by the TLA+ model, spec/README.md).
     */
    public static Duration watchPeriod(Duration holderLease) {
        return Duration.ofNanos(takeoverAfterNanos(holderLease));
    }

    /**
     * Drops sightings nobody looked at for two takeover periods (they would take as long to rebuild); if more than
     * three quarters of the bound are left, the least recently seen ones beyond that, so that the next pruning is a
     * quarter of the bound away (each costs a sort of the map).
     */
    private void prune(long nowNanos) {
        watched.entrySet().removeIf(entry -> nowNanos - entry.getValue().lastSeenNanos()
                > 2 * Math.min(entry.getValue().takeoverAfterNanos(), Long.MAX_VALUE / 4));
        int excess = watched.size() - MAX_WATCHED * 3 / 4;
        if (excess <= 0) {
            return;
        }
        List<Map.Entry<String, Watched>> oldestFirst = new ArrayList<>(watched.entrySet());
        // Elapsed time since each sighting, never the raw nanoTime values: those may wrap around.
        oldestFirst.sort(Comparator.comparingLong((Map.Entry<String, Watched> entry) ->
                nowNanos - entry.getValue().lastSeenNanos()).reversed());
        for (Map.Entry<String, Watched> entry : oldestFirst.subList(0, Math.min(excess, oldestFirst.size()))) {
            watched.remove(entry.getKey(), entry.getValue());
        }
    }

    int size() {
        return watched.size();
    }
}
