package io.github.mongolock.core;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockException;
import io.github.mongolock.LockInterruptedException;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.OnLeaseLost;
import io.github.mongolock.PermitHold;
import io.github.mongolock.Permits;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * The leased semaphores of one manager, written once for every {@link PermitStore}: validation, the wait loop, the
 * grants under the manager's sessions and their release. A waiter that finds too few permits free watches the
 * holding sessions' beats on its own monotonic clock; a session unrenewed for its lease plus the drift margin (the
 * same rule as for locks, {@link LeaseWatch}), or read as ended or missing, is handed to the store, which ends it by a
 * compare-and-set before it takes any permit back. Thread-safe.
 */
final class PermitCoordinator {

    private static final System.Logger LOG = System.getLogger(PermitCoordinator.class.getName());
    /** The longest pause between two looks at a busy semaphore; a fifth of the shortest lease watched, if shorter. */
    private static final Duration MAX_POLL = Duration.ofMillis(500);

    private final PermitStore store;
    private final Sessions sessions;
    private final MonotonicClock clock;
    private final RetryBackoff backoff;
    private final String ownerPrefix;
    private final Duration defaultLease;
    private final Duration defaultWait;
    private final PermitHoldings holdings;
    private final PermitQueues queues;
    /** The holding sessions seen by any of this manager's waiters, watched for their leases across calls. */
    private final HolderSessionWatch holderSessions = new HolderSessionWatch();
    /** Waiters for permits, per semaphore name; woken by releases here and by pushed notices. */
    private final ReleaseSignals signals;
    /** Starts (or nudges) the manager's push feed: called when a waiter finds permits held elsewhere. */
    private final Runnable startFeed;
    private final LockEvents events;
    private final PermitReports reports;
    private final AtomicLong acquisitions = new AtomicLong();
    private final String ownerTag;
    private volatile boolean closed;

    /**
     * @param store     empty when the lock store keeps no semaphores: {@link #permits} then refuses
     * @param signals   this manager's waiters for permits, which the push feed's notices for semaphores wake
     * @param reports   the metrics, spans and events of the calls and holds
     * @param startFeed starts or nudges the manager's push feed
     * @param readWrite whether the store's records are read-write locks' (only writers queue; owner ids end in
     *                  {@code :rw<n>}) rather than semaphores' ({@code :p<n>})
     */
    PermitCoordinator(Optional<? extends PermitStore> store, Sessions sessions, MonotonicClock clock, RetryBackoff backoff,
                      String ownerPrefix, Duration defaultLease, Duration defaultWait, LockEvents events,
                      PermitReports reports, ReleaseSignals signals, Runnable startFeed, boolean readWrite) {
        this.store = store.orElse(null);
        this.ownerTag = readWrite ? ":rw" : ":p";
        this.sessions = sessions;
        this.clock = clock;
        this.backoff = backoff;
        this.ownerPrefix = ownerPrefix;
        this.defaultLease = defaultLease;
        this.defaultWait = defaultWait;
        this.reports = reports;
        this.holdings = store.map(permits -> new PermitHoldings(permits, events, reports)).orElse(null);
        this.queues = store.map(permits -> new PermitQueues(permits, ownerPrefix, clock, readWrite)).orElse(null);
        this.signals = signals;
        this.startFeed = startFeed;
        this.events = events;
    }

    /** What the session renewer must know of the permits held here. */
    SessionHolders sessionHolders() {
        return holdings == null ? SessionHolders.NONE : holdings;
    }

    /** The semaphore {@code name} with {@code limit} permits; validated here, nothing written. */
    Permits permits(String name, int limit) {
        if (store == null) {
            throw new UnsupportedOperationException("This lock store keeps no semaphores: use MongoLockStore or InMemoryLockStore");
        }
        LockArguments.checkName(name);
        if (limit < 1) {
            throw new LockConfigurationException("The semaphore " + LockArguments.quote(name) + " was given a limit of "
                    + limit + ": a semaphore needs at least 1 permit.");
        }
        return new CoordinatedSemaphore(this, reports, store, name, limit, defaultWait);
    }

    boolean confirmed(Session session) {
        return session.confirmedAt(clock.nanoTime());
    }

    /** @return the hold, or empty when the wait ended with too few permits free */
    Optional<PermitHold> acquire(String name, int limit, int permits, LockOptions options) {
        if (permits < 1 || permits > limit) {
            throw new LockConfigurationException("Asked for " + permits + " permit(s) of semaphore " + LockArguments.quote(name)
                    + ", which has " + limit + ": ask for 1 to " + limit + ".");
        }
        Duration lease = LockArguments.checkLease(options.leaseTime().orElse(defaultLease), "leaseTime");
        Duration wait = LockArguments.checkWait(options.waitTime().orElse(defaultWait), "waitTime");
        if (!options.holdAtLeast().isZero()) {
            throw new LockConfigurationException("holdAtLeast " + options.holdAtLeast() + " was given for permits of semaphore "
                    + LockArguments.quote(name) + ": a permit is given back when its hold is closed, and a minimum hold"
                    + " applies to locks only. Leave holdAtLeast unset, or use a lock.");
        }
        long start = clock.nanoTime();
        long deadline = start + LockArguments.saturatedNanos(wait);
        boolean waits = deadline - start > 0;
        // Joined before the first attempt, so that a release between an attempt and the park is seen.
        ReleaseSignals.Signal signal = waits ? signals.join(name) : null;
        if (waits) {
            queues.waitStarts(name);
        }
        Optional<PermitHold> outcome = Optional.empty();
        boolean woken = false;
        // A holding session due to be taken back (seen due, or come due while this caller paused): the next attempt is
        // the take-back, without looking first (its compare-and-set on the beat still refuses a session renewed since).
        PermitHolders.Seen takeBackFirst = null;
        try {
            for (int attempt = 0; ; attempt++) {
                refuseIfClosed();
                long generation = signal == null ? 0 : signal.generation();
                Session session = sessions.forGrant(lease);
                PermitHolders.Seen stale = takeBackFirst;
                takeBackFirst = null;
                if (stale != null) {
                    holderSessions.forget(stale.session());
                }
                Answer answer = attemptOnce(name, limit, permits, session, stale);
                if (answer.result() instanceof PermitAttempt.Granted) {
                    outcome = register(name, limit, permits, session, answer);
                    if (outcome.isPresent()) {
                        return interruptOnLoss(outcome, options);
                    }
                    continue; // answered after the session's lease: given back, try again under a confirmed session
                }
                PermitAttempt.Busy busy = (PermitAttempt.Busy) answer.result();
                if (stale != null && busy.seen().isEmpty()) {
                    continue; // renewed since: look again at once
                }
                long now = clock.nanoTime();
                PermitHolders.Seen due = dueForReclaim(busy, now);
                if (due != null) {
                    takeBackFirst = due; // taken back at once, by the next attempt
                    continue;
                }
                if (busy.seen().isPresent() && queues.dropIfGone(name, busy.seen().get(), lease)) {
                    continue; // the gone head is out of the queue: our turn may be now
                }
                if (now - deadline >= 0 || signal == null) {
                    return Optional.empty();
                }
                startFeed.run(); // held elsewhere: a pushed notice may wake us before the pause ends
                busy.seen().ifPresent(seen -> queues.busy(name, seen, permits, lease));
                woken = pause(attempt, deadline - clock.nanoTime(), busy, signal, generation);
                if (!woken) {
                    takeBackFirst = dueWithoutLooking(busy, clock.nanoTime());
                }
            }
        } finally {
            if (signal != null) {
                if (woken && outcome.isEmpty()) {
                    signals.released(name); // leaving with a wake-up meant for a waiter: pass it on
                }
                signals.leave(name, signal);
                queues.waitEnds(name, outcome.isPresent());
            }
        }
    }

    /** With {@link OnLeaseLost#INTERRUPT}, the acquiring thread is interrupted when the hold's lease is lost while open. */
    private static Optional<PermitHold> interruptOnLoss(Optional<PermitHold> hold, LockOptions options) {
        if (options.onLeaseLost() == OnLeaseLost.INTERRUPT) {
            Thread holder = Thread.currentThread();
            hold.get().onLeaseLost(holder::interrupt);
        }
        return hold;
    }

    /**
     * One grant (or, with {@code stale}, a reclaim of that session's permits and then a grant), under an owner id of
     * its own. An unknown outcome is given back at once if possible, and else by the session's checks, which give back
     * what no acquisition here knows.
     */
    private Answer attemptOnce(String name, int limit, int permits, Session session, PermitHolders.Seen stale) {
        String owner = ownerPrefix + ownerTag + acquisitions.incrementAndGet();
        holdings.pending(owner);
        try {
            PermitAttempt result = stale == null ? store.tryAcquire(name, limit, permits, owner, session.id)
                    : store.reclaim(name, limit, permits, owner, session.id, stale);
            if (!(result instanceof PermitAttempt.Granted)) {
                holdings.notPending(owner);
            }
            return new Answer(owner, result);
        } catch (LockStoreException failure) {
            if (failure.outcomeUnknown()) {
                session.checkSoon(); // the grant may have landed: the next checks give it back if this cannot
                bestEffortGiveBack(name, owner, permits);
            }
            holdings.notPending(owner);
            throw failure;
        } catch (RuntimeException other) {
            holdings.notPending(owner);
            throw other;
        }
    }

    /**
     * The hold of a grant, believed only if its session's lease was still confirmed when the answer came (as for
     * locks, spec/MongoLockSessions.tla "GrantOwnLease"); else given back, and the caller tries again.
     */
    private Optional<PermitHold> register(String name, int limit, int permits, Session session, Answer answer) {
        PermitAttempt.Granted granted = (PermitAttempt.Granted) answer.result();
        HeldPermits hold = new HeldPermits(this, name, limit, permits, answer.owner(), session, granted.fencingToken());
        holdings.registered(hold);
        if (!session.confirmedAt(clock.nanoTime())) {
            holdings.removed(hold);
            bestEffortGiveBack(name, answer.owner(), permits);
            return Optional.empty();
        }
        if (closed) {
            hold.close();
            refuseIfClosed();
        }
        return Optional.of(hold);
    }

    /**
     * A read hold for the caller of {@code write}, a read-write lock's write hold, beside it: one compare-and-set on the
     * write entry, never waiting. Empty when the write entry is gone (taken back): the write hold is lost then.
     */
    Optional<HeldPermits> downgrade(HeldPermits write) {
        String owner = ownerPrefix + ownerTag + acquisitions.incrementAndGet();
        holdings.pending(owner);
        try {
            PermitAttempt result = ((ReadWriteStore) store).downgrade(write.name, write.owner, owner, write.session.id);
            if (!(result instanceof PermitAttempt.Granted granted)) {
                holdings.notPending(owner);
                return Optional.empty();
            }
            HeldPermits read = new HeldPermits(this, write.name, write.limit, 1, owner, write.session, granted.fencingToken());
            holdings.registered(read);
            return Optional.of(read);
        } catch (LockStoreException failure) {
            if (failure.outcomeUnknown()) {
                write.session.checkSoon();
                bestEffortGiveBack(write.name, owner, 1);
            }
            holdings.notPending(owner);
            throw failure;
        }
    }

    private void bestEffortGiveBack(String name, String owner, int permits) {
        try {
            OwnedLocks.withoutInterrupt(() -> store.release(name, owner, permits));
        } catch (LockException stillDown) {
            LOG.log(Level.DEBUG, "mongolock could not give back the permits of an attempt on {0} with an unknown outcome;"
                    + " the session's checks will: {1}", LockArguments.quote(name), stillDown.getMessage());
        }
    }

    /** The holding session to reclaim now, if any: read as ended, or watched unrenewed for its lease and margin. */
    private PermitHolders.Seen dueForReclaim(PermitAttempt.Busy busy, long now) {
        if (busy.seen().isEmpty()) {
            return null;
        }
        Set<String> mine = sessions.live().stream().map(own -> own.id).collect(Collectors.toSet());
        PermitHolders.Seen due = null;
        for (PermitHolders.Seen seen : busy.seen().get().sessions()) {
            if (mine.contains(seen.session())) {
                continue; // this manager's own live session: renewed here
            }
            if (seen.ended()) {
                due = seen;
            } else if (holderSessions.unrenewed(seen.session(), seen.beat(), seen.lease(), now)) {
                due = seen;
            }
        }
        return due;
    }

    /** A holding session of {@code busy}, as seen then, that has come due since on this manager's watch; else null. */
    private PermitHolders.Seen dueWithoutLooking(PermitAttempt.Busy busy, long now) {
        for (PermitHolders.Seen seen : busy.seen().map(PermitHolders::sessions).orElse(List.of())) {
            if (!seen.ended() && holderSessions.dueWithout(seen.session(), seen.beat(), now)) {
                return seen;
            }
        }
        return null;
    }

    /**
     * Parks until a release of {@code name} (here, or pushed from another manager), the backoff, or the poll a watched
     * lease needs, whichever comes first.
     *
     * @return whether a release woke the caller
     */
    private boolean pause(int attempt, long leftNanos, PermitAttempt.Busy busy, ReleaseSignals.Signal signal,
                          long generation) {
        long poll = MAX_POLL.toNanos();
        long now = clock.nanoTime();
        for (PermitHolders.Seen session : busy.seen().map(PermitHolders::sessions).orElse(List.of())) {
            poll = Math.min(poll, Math.max(LockArguments.saturatedNanos(session.lease()) / 5, 1_000_000));
            // Look again right when a watched session comes due, not up to a poll later.
            poll = Math.min(poll, Math.max(holderSessions.nanosUntilDue(session.session(), now), 1_000_000));
        }
        long pause = Math.max(Math.min(Math.min(backoff.pauseNanos(attempt, null, false), poll), leftNanos), 0);
        try {
            return signal.awaitChange(generation, pause, null);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException("Interrupted while waiting for permits", interrupted);
        }
    }

    private void refuseIfClosed() {
        if (closed) {
            throw new LockException("This lock manager is closed: it grants no permits any more.");
        }
    }

    /** Gives back {@code permits}' permits (the owner closed its hold), and wakes a caller here waiting for them. */
    void release(HeldPermits permits, boolean lost) {
        holdings.removed(permits);
        reports.ended(permits, lost, false);
        if (lost) {
            return; // taken back already, or given back by the session's checks if not
        }
        try {
            OwnedLocks.withoutInterrupt(() -> store.release(permits.name, permits.owner, permits.permits));
        } catch (LockStoreException failure) {
            permits.session.checkSoon(); // the session's checks give back what no acquisition here knows
            throw failure;
        }
        signals.released(permits.name);
    }

    /**
     * Waits until the hold of {@code owner} is known lost here and its loss actions have run (the test kit's controls,
     * after the renewer was asked to check at once).
     *
     * @return false when no open hold of this manager has that owner (nothing to tell)
     * @throws LockException when the holder was not told within {@code timeoutMillis}
     */
    boolean awaitLossTold(String owner, long timeoutMillis) throws InterruptedException {
        HeldPermits hold = holdings == null ? null
                : holdings.all().stream().filter(held -> held.owner.equals(owner)).findFirst().orElse(null);
        if (hold == null) {
            return false;
        }
        if (!hold.awaitTold(timeoutMillis)) {
            throw new LockException("The holder " + owner + " of permits of semaphore " + LockArguments.quote(hold.name)
                    + " was not told of their loss within " + timeoutMillis + " ms: is its manager's renewal thread stuck?");
        }
        return true;
    }

    /** The manager closes: no more grants; every hold is given back. */
    void close() {
        closed = true;
        signals.releasedAll(); // waiters see the close at once
        if (holdings == null) {
            return;
        }
        queues.leaveAll();
        for (HeldPermits permits : holdings.all()) {
            try {
                permits.close();
            } catch (LockException failed) {
                LOG.log(Level.DEBUG, "mongolock could not give back {0} on close: {1}", permits, failed.getMessage());
            }
        }
    }

    private record Answer(String owner, PermitAttempt result) {
    }
}
