package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static io.github.mongolock.mongo.LockDocument.BEAT;
import static io.github.mongolock.mongo.LockDocument.BEAT_RENEWED;
import static io.github.mongolock.mongo.LockDocument.HOLDS;
import static io.github.mongolock.mongo.LockDocument.ID;
import static io.github.mongolock.mongo.LockDocument.KEPT;
import static io.github.mongolock.mongo.LockDocument.LEASE_ID;
import static io.github.mongolock.mongo.LockDocument.LEASE_MS;
import static io.github.mongolock.mongo.LockDocument.OWNER;
import static io.github.mongolock.mongo.LockDocument.RELEASED_AT;
import static io.github.mongolock.mongo.LockDocument.RENEWED_AT;
import static io.github.mongolock.mongo.LockDocument.SESSION_HELD;
import static io.github.mongolock.mongo.LockDocument.VERSION;
import static io.github.mongolock.mongo.LockDocument.number;
import static io.github.mongolock.mongo.LockDocument.queue;
import static io.github.mongolock.mongo.LockDocument.serverNow;
import static io.github.mongolock.mongo.MongoLockStore.LONG_AGO;
import static io.github.mongolock.mongo.MongoLockStore.TURN_GRACE;

import io.github.mongolock.core.LeaseWatch;
import io.github.mongolock.core.Sighting;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The state a waiter watches: equal only if nothing touched the lock in between. {@code renewedAt}
 * is part of it for the earlier version's holders, whose renewals move nothing else. {@code head}
 * is the queue's head while the lock is free (null while held): a free lock waits for its head, and
 * a new head starts a new watch. It is not part of the takeover's filter: a head that changed since
 * the sighting costs only fairness, never safety.
 *
 * <p>It owns both ends of the waiter's rule in the store: how a read document becomes a {@link Sighting}
 * ({@link #sightingOf}), and the takeover's compare-and-set filter on that very state ({@link #filter}).
 * {@link MongoLockStore} only carries it, opaque, through the coordinator's watch.
 */
record WatchedState(Object version, Object beat, Object renewedAt, boolean renewsBeat, String head,
                    Object owner, Object holds) {

    Bson filter(String name) {
        // Owner and hold count too, though the version alone names a state on MongoDB: a server whose
        // reads can see a write half-applied (the stand-in updates documents in place) could otherwise
        // pair a free lock's hold count with the version and beat of the grant that just took it.
        Bson state = and(eq(ID, name), eq(VERSION, version), eq(BEAT, beat), eq(OWNER, owner), eq(HOLDS, holds));
        // renewedAt is compared only when it is what the holder renews: an equality on a date is exact
        // on MongoDB (milliseconds) but not on every compatible server.
        return renewsBeat ? state : and(state, eq(RENEWED_AT, renewedAt));
    }

    /**
     * What a waiter learns from one read of the lock's document: the state to watch, who holds it (for
     * messages), how long the state must stay unchanged before a takeover, and whether the database's clock
     * already says the lease ended long ago (the fast path, only when the read carried that clock).
     */
    static Sighting sightingOf(Document state) {
        Object version = state.get(VERSION);
        Object renewedAt = state.get(RENEWED_AT);
        long leaseMs = number(state, LEASE_MS);
        Date serverNow = serverNow(state);
        boolean endedLongAgo = false;
        if (serverNow != null && renewedAt instanceof Date renewed && number(state, HOLDS) > 0) {
            // Unrenewed for the waiter's own watch period (lease + drift margin) and then max(1 min, lease)
            // more: only a forward step of the database's clock of at least that much could fake it.
            long watchMs = LeaseWatch.watchPeriod(Duration.ofMillis(leaseMs)).toMillis();
            long unrenewedMs = serverNow.getTime() - renewed.getTime();
            endedLongAgo = unrenewedMs > watchMs + Math.max(LONG_AGO.toMillis(), leaseMs);
        }
        if (serverNow != null && state.get(RELEASED_AT) instanceof Date released && number(state, HOLDS) > 0
                && state.get(LEASE_ID) instanceof String kept && kept.startsWith(KEPT)) {
            // A minimum hold whose holder released it: nobody is inside, so its end is no safety matter, and the
            // database's clock may say when it is over. Without this, a waiter that first sees it late would
            // wait a whole watch more, and a lone instance's next job tick would find it still taken.
            endedLongAgo |= serverNow.getTime() - released.getTime() >= leaseMs;
        }
        String owner = state.getString(OWNER);
        String leaseId = state.getString(LEASE_ID);
        // This version's leases ("s", under a session; "bk", kept) and the previous one's ("b") never renew
        // renewedAt alone; only the first version's holders do.
        boolean renewsBeat = leaseId != null && (leaseId.startsWith(BEAT_RENEWED) || leaseId.startsWith(SESSION_HELD));
        List<?> queue = queue(state);
        String head = number(state, HOLDS) == 0 && !queue.isEmpty() ? String.valueOf(queue.get(0)) : null;
        String holder = owner != null ? owner : head != null ? "nobody (free, queued for " + head + ")" : "nobody";
        // A free lock waits for its queue's head no longer than TURN_GRACE: taking a free lock can never
        // break mutual exclusion, so only fairness is at stake, and a live head takes its turn long before.
        Duration watched = head != null && leaseMs > TURN_GRACE.toMillis() ? TURN_GRACE : Duration.ofMillis(leaseMs);
        return new Sighting(new WatchedState(version, state.get(BEAT), renewedAt, renewsBeat, head, owner,
                state.get(HOLDS)), holder, watched, endedLongAgo);
    }
}
