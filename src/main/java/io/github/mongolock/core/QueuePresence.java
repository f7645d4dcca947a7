package io.github.mongolock.core;

import io.github.mongolock.LockException;
import io.github.mongolock.LockInterruptedException;
import io.github.mongolock.LockStoreException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One manager's place in the locks' queues of waiting managers (docs/fairness.md), and how its
 * waiters share the polling while it is queued: one of them asks the store, the others stay quiet
 * until a pushed release notice or the poll one of them claims. Callers pass store calls through their
 * call gate first. Thread-safe.
 */
final class QueuePresence {

    private static final System.Logger LOG = System.getLogger(QueuePresence.class.getName());

    private final LockStore store;
    private final String manager;
    private final MonotonicClock clock;
    private final long maxQuietNanos;
    /**
     * Names whose queue this manager may be in (joined, or seen there), until it leaves or is granted. A queue it
     * could not leave stays here, to be left on close, while fewer than {@value #MAX_UNLEFT} names are: names from
     * user input during a long outage would otherwise pile up. One forgotten stays in the lock's queue, which then
     * waits for this manager's turn once, for one watch period (as for a manager that crashed).
     */
    private final Set<String> queuedFor = ConcurrentHashMap.newKeySet();
    static final int MAX_UNLEFT = 1_000;
    /** Per name, until when this manager's waiters need not ask the store. */
    private final ConcurrentHashMap<String, Quiet> quietUntil = new ConcurrentHashMap<>();

    /**
     * Until when (nanoTime) the waiters may stay quiet, and the wake-up generation the poll behind it started
     * from. Compared by identity in {@link #quietOrClaimPoll}: each claim is a new instance.
     */
    private static final class Quiet {
        final long untilNanos;
        final long generation;

        Quiet(long untilNanos, long generation) {
            this.untilNanos = untilNanos;
            this.generation = generation;
        }
    }

    /** @param maxQuiet the longest its waiters stay away from the store while queued (the pushed backoff's ceiling) */
    QueuePresence(LockStore store, String manager, MonotonicClock clock, Duration maxQuiet) {
        this.store = store;
        this.manager = manager;
        this.clock = clock;
        this.maxQuietNanos = maxQuiet.toNanos();
    }

    /**
     * After the store found {@code name} busy for a caller that waits: joins the lock's queue when the
     * store showed this manager missing there and the lock is not this manager's own (a grant to another
     * of its callers not yet registered). A failure only costs fairness: the next attempt tries again.
     *
     * @return whether this manager is (or may be) in the queue now
     */
    boolean queueUp(String name, FreshAttempts.Outcome busy) {
        if (busy.queued()) {
            queuedFor.add(name);
            return true;
        }
        if (busy.holder().map(holder -> holder.startsWith(manager + ":")).orElse(false)) {
            return false;
        }
        queuedFor.add(name); // before the call: its answer may be lost after it landed
        try {
            store.joinQueue(name, manager);
        } catch (LockStoreException failed) {
            LOG.log(Level.DEBUG, "mongolock could not queue for lock {0}; the next attempt tries again: {1}",
                    LockArguments.quote(name), failed.getMessage());
        }
        return true;
    }

    /**
     * A caller of this queued manager just asked the store and found {@code name} held elsewhere: the
     * others may stay quiet until its next look is due ({@code retryBy}, e.g. for the lease watch) and
     * at most the pushed backoff's ceiling.
     *
     * @param generation the name's wake-up generation ({@link ReleaseSignals.Signal#generation()}) the caller read
     *                   before it asked: a notice that came while it asked moved it, and then this quiet is void
     */
    void asked(String name, Duration retryBy, long generation) {
        long calm = Math.min(retryBy == null ? Long.MAX_VALUE : retryBy.toNanos(), maxQuietNanos);
        quietUntil.put(name, new Quiet(clock.nanoTime() + calm, generation));
    }

    /**
     * How long a waiter for {@code name} may still leave the store alone: 0 when this manager is not
     * queued for it, or when the quiet is over and this caller claimed the next poll (the others stay
     * quiet while it asks).
     *
     * @param generation the name's wake-up generation now: a quiet set before a later wake-up (a pushed notice,
     *                   a release here, notices missed) is over, since the wake-up is news it was not based on
     */
    long quietOrClaimPoll(String name, long generation) {
        Quiet quiet = queuedFor.contains(name) ? quietUntil.get(name) : null;
        if (quiet == null) {
            return 0;
        }
        long now = clock.nanoTime();
        if (quiet.generation == generation && quiet.untilNanos - now > 0) {
            return quiet.untilNanos - now;
        }
        if (quietUntil.replace(name, quiet, new Quiet(now + maxQuietNanos, generation))) {
            return 0;
        }
        Quiet claimed = quietUntil.get(name); // a sibling claimed this poll first
        return claimed == null || claimed.generation != generation ? 0 : Math.max(claimed.untilNanos - now, 0);
    }

    /** A fresh grant took this manager out of the lock's queue. */
    void granted(String name) {
        queuedFor.remove(name);
        quietUntil.remove(name);
    }

    /** Takes this manager out of {@code name}'s queue; best effort (a gone head stalls the lock once, one watch period). */
    void leave(String name) {
        // The quiet was for callers who no longer wait, whatever MongoDB answers: kept, it would keep the next caller
        // from asking at all, though the lock may have been freed while nobody here waited for a notice.
        quietUntil.remove(name);
        try {
            OwnedLocks.withoutInterrupt(() -> {
                store.leaveQueue(name, manager);
                return null;
            });
            queuedFor.remove(name);
        } catch (LockStoreException | LockInterruptedException failed) {
            LOG.log(Level.DEBUG, "mongolock could not leave the queue of lock {0}: {1}", LockArguments.quote(name),
                    failed.getMessage());
            if (queuedFor.size() > MAX_UNLEFT) {
                queuedFor.remove(name);
            }
        }
    }

    /** Closing: out of every queue this manager may still be in, so no lock waits for its turn. Best effort. */
    void leaveAll() {
        for (String name : queuedFor) {
            try {
                leave(name);
            } catch (LockException unexpected) {
                LOG.log(Level.DEBUG, "mongolock could not leave the queue of lock {0} on close: {1}", LockArguments.quote(name),
                        unexpected.getMessage());
            }
        }
    }
}
