package io.github.mongolock.core;

import io.github.mongolock.LockException;
import io.github.mongolock.LockInterruptedException;
import io.github.mongolock.LockStoreException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This manager's places in the semaphores' queues of waiting managers: fairness across managers, as for locks
 * (docs/permits.md). A permit is granted only to the manager first in the queue, or to anyone when nobody is queued.
 * The manager joins when one of its waiting callers finds too few permits free and it is not queued yet; the grant takes
 * it out; it leaves when its last waiter for the name gives up. First in the queue but with too few permits free for its
 * waiter (another manager could use the few that are), it shows now and then that it still waits, so that the others do
 * not take it for gone. A head that shows nothing for the turn grace while permits are free for a waiter behind it
 * (crashed, paused, or no longer waiting) is taken out by that waiter. Every failure here only costs fairness, never
 * the limit: the next attempt tries again. Thread-safe.
 */
final class PermitQueues {

    private static final System.Logger LOG = System.getLogger(PermitQueues.class.getName());
    /**
     * How long a queue head may show nothing while permits are free for a waiter behind it (plus the drift margin): 3 s,
     * or the waiter's lease if shorter, as a lock's queue head is judged by the lock's lease if shorter than 3 s.
     */
    static final Duration TURN_GRACE = Duration.ofSeconds(3);
    /** How often a head that waits for more permits than are free shows it: a third of the turn grace. */
    private static final long SHOW_EVERY_NANOS = Duration.ofSeconds(1).toNanos();

    private final PermitStore store;
    private final String manager;
    private final MonotonicClock clock;
    private final boolean writersQueue;
    /** Per semaphore name, how many callers of this manager wait for it now. */
    private final ConcurrentHashMap<String, Integer> waiting = new ConcurrentHashMap<>();
    /**
     * Per name, the other manager first in the queue as this manager watched it, across calls (a caller that waits
     * less than the grace, retried, must still judge a gone head): at most {@value #MAX_HEADS_WATCHED} names.
     */
    private final ConcurrentHashMap<String, Head> heads = new ConcurrentHashMap<>();
    static final int MAX_HEADS_WATCHED = 1_000;
    /** Per semaphore name, when this manager last showed that it still waits as the queue's head (nanoTime). */
    private final ConcurrentHashMap<String, Long> shownAt = new ConcurrentHashMap<>();

    /**
     * @param manager       this manager's id in queues (the owner ids' prefix)
     * @param writersQueue  a read-write lock's: only callers asking for the whole limit (writers) queue; readers never do
     */
    PermitQueues(PermitStore store, String manager, MonotonicClock clock, boolean writersQueue) {
        this.writersQueue = writersQueue;
        this.store = store;
        this.manager = manager;
        this.clock = clock;
    }

    /** A caller starts waiting for {@code name}. */
    void waitStarts(String name) {
        waiting.merge(name, 1, Integer::sum);
    }

    /**
     * A caller stops waiting for {@code name}: granted (the grant took this manager out of the queue), or gave up. The
     * last one to give up takes this manager out, so that no other manager waits for its turn.
     */
    void waitEnds(String name, boolean granted) {
        Integer left = waiting.computeIfPresent(name, (key, count) -> count == 1 ? null : count - 1);
        if (left == null) {
            shownAt.remove(name);
            if (!granted) {
                leave(name);
            }
        }
    }

    /**
     * A waiting caller asking for {@code permits} found the semaphore as {@code seen} and got none: joins the queue
     * when this manager is not in it, or, first in it with too few permits free, shows that it still waits.
     */
    void busy(String name, PermitHolders seen, int permits, Duration lease) {
        if (writersQueue && permits < seen.limit()) {
            return; // a reader: it waits behind the writers queued, never among them
        }
        try {
            if (!seen.queue().contains(manager)) {
                store.joinQueue(name, manager);
            } else if (manager.equals(seen.queueHead()) && seen.free() < permits) {
                long now = clock.nanoTime();
                Long last = shownAt.get(name);
                if (last == null || now - last >= Math.min(SHOW_EVERY_NANOS, LockArguments.saturatedNanos(lease) / 3)) {
                    shownAt.put(name, now);
                    store.stillWaiting(name, manager);
                }
            }
        } catch (LockStoreException failed) {
            LOG.log(Level.DEBUG, "mongolock could not keep its place in the queue of semaphore {0}; the next attempt tries"
                    + " again: {1}", LockArguments.quote(name), failed.getMessage());
        }
    }

    /**
     * Whether the manager first in {@code name}'s queue takes its turn, judged for this whole manager (as the holding
     * sessions are, {@link HolderSessionWatch}): when another manager is first and that head and its turn count stay as
     * they are for the turn grace (3 s, or {@code lease} if shorter, plus the drift margin) on this manager's clock, the
     * head is taken to be gone and is taken out of the queue. Watched whether or not there is room for the caller now:
     * a live head is granted as soon as there is room for it and shows it still waits while there is not, so a head and
     * turn unchanged for the grace mean a gone head, whatever the permits did meanwhile. Watched per call and only
     * while there was room, the grace began only once a crashed holder's permits came back, and a caller waiting less
     * than the grace never judged at all (the torture's PERMITS_KILL: 4.3 s; RW_KILL: a name stalled for 12 s).
     *
     * @return true when a gone head was taken out just now (the caller should try again at once)
     */
    boolean dropIfGone(String name, PermitHolders seen, Duration lease) {
        String first = seen.queueHead();
        if (first == null || first.equals(manager)) {
            heads.remove(name);
            return false;
        }
        long now = clock.nanoTime();
        if (heads.size() > MAX_HEADS_WATCHED && !heads.containsKey(name)) {
            heads.clear(); // names from user input: bounded memory; forgetting only restarts a watch (fairness)
        }
        Head watched = heads.compute(name, (key, before) -> before != null && before.head().equals(first)
                && before.turn() == seen.turn() ? before : new Head(first, seen.turn(), now));
        long grace = LeaseWatch.takeoverAfterNanos(TURN_GRACE.compareTo(lease) < 0 ? TURN_GRACE : lease);
        if (now - watched.sinceNanos() < grace) {
            return false;
        }
        heads.remove(name, watched);
        try {
            return store.dropStaleHead(name, first, watched.turn());
        } catch (LockStoreException failed) {
            LOG.log(Level.DEBUG, "mongolock could not take the gone manager {0} out of the queue of {1}: {2}",
                    first, LockArguments.quote(name), failed.getMessage());
            return false;
        }
    }

    /** A queue's head as first seen by this manager with that turn count. */
    private record Head(String head, long turn, long sinceNanos) {
    }

    /** Closing: out of every queue this manager may still be in. Best effort. */
    void leaveAll() {
        for (String name : waiting.keySet()) {
            try {
                leave(name);
            } catch (LockException unexpected) {
                LOG.log(Level.DEBUG, "mongolock could not leave the queue of semaphore {0} on close: {1}",
                        LockArguments.quote(name), unexpected.getMessage());
            }
        }
    }

    private void leave(String name) {
        try {
            OwnedLocks.withoutInterrupt(() -> {
                store.leaveQueue(name, manager);
                return null;
            });
        } catch (LockStoreException | LockInterruptedException failed) {
            // Left in the queue: the other managers' waiters take it out after the turn grace, once.
            LOG.log(Level.DEBUG, "mongolock could not leave the queue of semaphore {0}: {1}", LockArguments.quote(name),
                    failed.getMessage());
        }
    }
}
