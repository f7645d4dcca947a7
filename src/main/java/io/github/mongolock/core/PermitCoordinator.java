package io.github.mongolock.core;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockException;
import io.github.mongolock.LockInterruptedException;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.PermitHold;
import io.github.mongolock.Permits;
import io.github.mongolock.PermitsInfo;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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
    private final PermitReports reports;
    private final AtomicLong acquisitions = new AtomicLong();
    private volatile boolean closed;

    /** @param store empty when the lock store keeps no semaphores: {@link #permits} then refuses */
    PermitCoordinator(Optional<PermitStore> store, Sessions sessions, MonotonicClock clock, RetryBackoff backoff,
                      String ownerPrefix, Duration defaultLease, Duration defaultWait, LockEvents events,
                      PermitReports reports) {
        this.store = store.orElse(null);
        this.sessions = sessions;
        this.clock = clock;
        this.backoff = backoff;
        this.ownerPrefix = ownerPrefix;
        this.defaultLease = defaultLease;
        this.defaultWait = defaultWait;
        this.reports = reports;
        this.holdings = store.map(permits -> new PermitHoldings(permits, events, reports)).orElse(null);
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
        return new Semaphore(name, limit);
    }

    boolean confirmed(Session session) {
        return session.confirmedAt(clock.nanoTime());
    }

    /** @return the hold, or empty when the wait ended with too few permits free */
    private Optional<PermitHold> acquire(String name, int limit, int permits, LockOptions options) {
        if (permits < 1 || permits > limit) {
            throw new LockConfigurationException("Asked for " + permits + " permit(s) of semaphore " + LockArguments.quote(name)
                    + ", which has " + limit + ": ask for 1 to " + limit + ".");
        }
        Duration lease = options.leaseTime().orElse(defaultLease);
        Duration wait = options.waitTime().orElse(defaultWait);
        long start = clock.nanoTime();
        long deadline = start + LockArguments.saturatedNanos(wait);
        Map<String, Watched> watched = new HashMap<>();
        for (int attempt = 0; ; attempt++) {
            refuseIfClosed();
            Session session = sessions.forGrant(lease);
            Answer answer = attemptOnce(name, limit, permits, session, null);
            if (answer.result() instanceof PermitAttempt.Granted) {
                Optional<PermitHold> hold = register(name, limit, permits, session, answer);
                if (hold.isPresent()) {
                    return hold;
                }
                continue; // answered after the session's lease: given back, try again under a confirmed session
            }
            PermitAttempt.Busy busy = (PermitAttempt.Busy) answer.result();
            long now = clock.nanoTime();
            PermitHolders.Seen due = dueForReclaim(busy, watched, now);
            if (due != null) {
                watched.remove(due.session());
                Answer reclaimed = attemptOnce(name, limit, permits, session, due);
                if (reclaimed.result() instanceof PermitAttempt.Granted) {
                    Optional<PermitHold> hold = register(name, limit, permits, session, reclaimed);
                    if (hold.isPresent()) {
                        return hold;
                    }
                }
                continue; // something changed: look again at once
            }
            if (now - deadline >= 0) {
                return Optional.empty();
            }
            pause(attempt, deadline - now, watched);
        }
    }

    /**
     * One grant (or, with {@code stale}, a reclaim of that session's permits and then a grant), under an owner id of
     * its own. An unknown outcome is given back at once if possible, and else by the session's checks, which give back
     * what no acquisition here knows.
     */
    private Answer attemptOnce(String name, int limit, int permits, Session session, PermitHolders.Seen stale) {
        String owner = ownerPrefix + ":p" + acquisitions.incrementAndGet();
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

    private void bestEffortGiveBack(String name, String owner, int permits) {
        try {
            OwnedLocks.withoutInterrupt(() -> store.release(name, owner, permits));
        } catch (LockException stillDown) {
            LOG.log(Level.DEBUG, "mongolock could not give back the permits of an attempt on {0} with an unknown outcome;"
                    + " the session's checks will: {1}", LockArguments.quote(name), stillDown.getMessage());
        }
    }

    /** The holding session to reclaim now, if any: read as ended, or watched unrenewed for its lease and margin. */
    private PermitHolders.Seen dueForReclaim(PermitAttempt.Busy busy, Map<String, Watched> watched, long now) {
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
                continue;
            }
            Watched before = watched.get(seen.session());
            if (before == null || !before.beat().equals(seen.beat())) {
                watched.put(seen.session(), new Watched(seen.beat(), now, seen.lease()));
            } else if (now - before.since() >= LeaseWatch.takeoverAfterNanos(seen.lease())) {
                due = seen;
            }
        }
        return due;
    }

    private void pause(int attempt, long leftNanos, Map<String, Watched> watched) {
        long poll = MAX_POLL.toNanos();
        for (Watched session : watched.values()) {
            poll = Math.min(poll, Math.max(LockArguments.saturatedNanos(session.lease()) / 5, 1_000_000));
        }
        long pause = Math.min(Math.min(backoff.pauseNanos(attempt, null, false), poll), leftNanos);
        LockSupport.parkNanos(pause);
        if (Thread.interrupted()) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException("Interrupted while waiting for permits", null);
        }
    }

    private void refuseIfClosed() {
        if (closed) {
            throw new LockException("This lock manager is closed: it grants no permits any more.");
        }
    }

    /** Gives back {@code permits}' permits (the owner closed its hold). */
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
    }

    /** The manager closes: no more grants; every hold is given back. */
    void close() {
        closed = true;
        if (holdings == null) {
            return;
        }
        for (HeldPermits permits : holdings.all()) {
            try {
                permits.close();
            } catch (LockException failed) {
                LOG.log(Level.DEBUG, "mongolock could not give back {0} on close: {1}", permits, failed.getMessage());
            }
        }
    }

    private record Watched(Object beat, long since, Duration lease) {
    }

    private record Answer(String owner, PermitAttempt result) {
    }

    /** One semaphore of this manager, as {@link #permits} returns it. */
    private final class Semaphore implements Permits {
        private final String name;
        private final int limit;

        Semaphore(String name, int limit) {
            this.name = name;
            this.limit = limit;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int limit() {
            return limit;
        }

        @Override
        public PermitHold acquire() {
            return acquire(1, LockOptions.defaults());
        }

        @Override
        public PermitHold acquire(int permits, LockOptions options) {
            Objects.requireNonNull(options, "options");
            Duration wait = options.waitTime().orElse(defaultWait);
            return reports.acquire(permits, options, true, () -> PermitCoordinator.this.acquire(name, limit, permits, options)
                    .orElseThrow(() -> new LockTimeoutException(name,
                    "No " + permits + " permit(s) of semaphore " + LockArguments.quote(name) + " (limit " + limit
                            + ") came free within " + wait + ": raise the wait time, or the limit everywhere at once.")));
        }

        @Override
        public Optional<PermitHold> tryAcquire() {
            return tryAcquire(1, LockOptions.defaults().waitTime(Duration.ZERO));
        }

        @Override
        public Optional<PermitHold> tryAcquire(int permits, LockOptions options) {
            Objects.requireNonNull(options, "options");
            return Optional.ofNullable(reports.acquire(permits, options, false,
                    () -> PermitCoordinator.this.acquire(name, limit, permits, options).orElse(null)));
        }

        @Override
        public Optional<PermitsInfo> inspect() {
            return store.inspect(name).map(PermitReports::info);
        }

        @Override
        public String toString() {
            return "Permits[name=" + name + ", limit=" + limit + "]";
        }
    }
}
