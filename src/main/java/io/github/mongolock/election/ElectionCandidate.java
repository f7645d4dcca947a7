package io.github.mongolock.election;

import io.github.mongolock.Leadership;
import io.github.mongolock.LeadershipListener;
import io.github.mongolock.LeadershipOptions;
import io.github.mongolock.LockException;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.RevocationReason;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One {@link Leadership}: polls for the election lock with one-attempt {@code tryAcquire} calls on the
 * elections' scheduler thread, and is leader while it holds that lock's session.
 *
 * <p>A candidate's state changes (granted, lost, stepped down, left) are made under {@code this} and
 * queue their listener callback there, so callbacks come in the order of the changes; they are
 * delivered outside the lock ({@link OrderedCallbacks}). The session is detached from the scheduler
 * thread as soon as it is granted: the thread polls for other elections, and must never re-enter this
 * hold. A lost lease is reported through {@link LockSession#onLeaseLost}, which the lock manager runs
 * when the lease ends unconfirmed (before another candidate's watch of the lock can end); each poll
 * while leader checks {@link LockSession#isHeld()} as well, for the ways a hold ends that run no loss
 * action (the lock manager closed under the election).
 */
final class ElectionCandidate implements Leadership {

    private static final System.Logger LOG = System.getLogger(ElectionCandidate.class.getName());
    /** After {@link #stepDown()}, the candidate sits this many poll intervals out. */
    static final int STEP_DOWN_POLLS = 2;

    private final String name;
    private final LockManager locks;
    private final LockOptions attempt;
    private final Duration pollInterval;
    private final Duration leaseTime;
    private final LeadershipListener listener;
    private final ScheduledExecutorService scheduler;
    private final Runnable onLeft;
    private final OrderedCallbacks callbacks;

    /** Read without the lock by {@link #isLeader()}; written under {@code this}. Null when not leader. */
    private volatile LockSession leading;
    /** Guarded by {@code this}. */
    private boolean closed;
    /** Guarded by {@code this}: moved by every step-down and by close, so an attempt begun before one is given back. */
    private long epoch;
    /** Guarded by {@code this}: no attempt before this (nanoTime), after a step-down. */
    private long sitOutUntil;
    /** Guarded by {@code this}. */
    private boolean sittingOut;
    /** Guarded by {@code this}: the next poll. */
    private ScheduledFuture<?> nextPoll;
    /** Only touched by the scheduler thread: whether the last attempt failed, to log a failing streak once. */
    private boolean failing;

    ElectionCandidate(String name, LockManager locks, LeadershipOptions options, LeadershipListener listener,
                      ScheduledExecutorService scheduler, Runnable onLeft) {
        this.name = name;
        this.locks = locks;
        this.attempt = LockOptions.defaults().waitTime(Duration.ZERO).leaseTime(options.leaseTime());
        this.pollInterval = options.pollInterval();
        this.leaseTime = options.leaseTime();
        this.listener = listener;
        this.scheduler = scheduler;
        this.onLeft = onLeft;
        this.callbacks = new OrderedCallbacks(name);
    }

    /** Starts polling: the first attempt at once. */
    synchronized void start() {
        nextPoll = scheduler.schedule(this::poll, 0, TimeUnit.NANOSECONDS);
    }

    /**
     * Plans the next poll a poll interval after this one began, or at once if this one took longer: the
     * interval does not stretch by the poll's own round trips (with a fixed delay, two polls, a sighting and
     * the takeover, would each add theirs to a failover), and a poll that hung (MongoDB unreachable) is not
     * followed by a burst of catch-up polls (as with a fixed rate).
     */
    private synchronized void planNext(long startedAt) {
        if (closed) {
            return;
        }
        long delay = Math.max(startedAt + pollInterval.toNanos() - System.nanoTime(), 0);
        try {
            nextPoll = scheduler.schedule(this::poll, delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException electionsClosing) {
            nextPoll = null; // LeaderElections.close() is closing this candidate too
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean isLeader() {
        LockSession session = leading;
        return session != null && session.isHeld();
    }

    @Override
    public OptionalLong term() {
        LockSession session = leading;
        return session != null && session.isHeld() ? OptionalLong.of(session.fencingToken()) : OptionalLong.empty();
    }

    /** One poll, on the scheduler thread; plans the next whatever happens, or polling would stop for good. */
    private void poll() {
        long startedAt = System.nanoTime();
        try {
            LockSession current;
            long epochAtStart;
            synchronized (this) {
                if (closed || (sittingOut && System.nanoTime() - sitOutUntil < 0)) {
                    return;
                }
                sittingOut = false;
                current = leading;
                epochAtStart = epoch;
            }
            if (current != null) {
                if (!current.isHeld()) {
                    lost(current);
                }
                return;
            }
            attempt(epochAtStart);
        } catch (RuntimeException unexpected) {
            LOG.log(Level.ERROR, "mongolock: a poll of election \"" + name + "\" failed unexpectedly; polling goes on",
                    unexpected);
        } finally {
            planNext(startedAt);
        }
    }

    private void attempt(long epochAtStart) {
        Optional<LockSession> won;
        try {
            won = locks.tryAcquire(name, attempt);
        } catch (RuntimeException failed) {
            // MongoDB unreachable, the lock manager closed (a LockException), or worse: logged once per failing
            // streak, since the candidate retries every poll interval.
            if (!failing) {
                failing = true;
                LOG.log(failed instanceof LockException ? Level.WARNING : Level.ERROR, "mongolock: election \"" + name
                        + "\" cannot try for the lock (" + failed + "); still a candidate, trying again every " + pollInterval);
            } else {
                LOG.log(Level.DEBUG, "mongolock: election \"" + name + "\" still cannot try for the lock", failed);
            }
            return;
        }
        if (failing) {
            failing = false;
            LOG.log(Level.INFO, "mongolock: election \"" + name + "\" can try for the lock again");
        }
        if (won.isEmpty()) {
            return;
        }
        // Unbound from this thread, which polls for every election of these LeaderElections.
        LockSession session = won.get().detach();
        boolean keep;
        synchronized (this) {
            keep = !closed && epoch == epochAtStart && leading == null;
            if (keep) {
                leading = session;
                long term = session.fencingToken();
                callbacks.add(() -> listener.granted(term));
            }
        }
        if (!keep) {
            release(session, "given back: the candidate stepped down or left while it was being granted");
            return;
        }
        LOG.log(Level.DEBUG, "mongolock: elected leader of \"" + name + "\", term " + session.fencingToken());
        // Registered after the grant is queued: a loss already known runs this at once, and its revoked then follows the granted.
        session.onLeaseLost(() -> lost(session));
        callbacks.deliver();
    }

    /** The lease of {@code session} was lost (or the hold ended without a loss action): revoked, and the session closed. */
    private void lost(LockSession session) {
        synchronized (this) {
            if (leading != session) {
                return; // stepped down or left first, or reported already
            }
            leading = null;
            long term = session.fencingToken();
            callbacks.add(() -> listener.revoked(term, RevocationReason.LEASE_LOST));
        }
        callbacks.deliver();
        LOG.log(Level.WARNING, "mongolock: lost the leadership of \"" + name + "\" (term " + session.fencingToken()
                + "): the election lock's lease was not confirmed in time, or the lock manager closed");
        // Closing a lost session only records it (LockLostException); off the notice thread all the same.
        try {
            scheduler.execute(() -> closeLost(session));
        } catch (RejectedExecutionException electionsClosed) {
            closeLost(session);
        }
    }

    @Override
    public boolean stepDown() {
        LockSession session;
        long ticket;
        synchronized (this) {
            epoch++;
            sittingOut = true;
            sitOutUntil = System.nanoTime() + pollInterval.multipliedBy(STEP_DOWN_POLLS).toNanos();
            session = leading;
            if (session == null) {
                return false;
            }
            leading = null;
            long term = session.fencingToken();
            ticket = callbacks.add(() -> listener.revoked(term, RevocationReason.STEPPED_DOWN));
        }
        tellBeforeRelease(ticket);
        release(session, "stepped down");
        return true;
    }

    /**
     * Delivers a step-down's or a leave's {@code revoked} before the release, so that the leader's work
     * stops before another candidate can be elected; when another thread is still delivering an earlier
     * callback (a slow {@code granted}), waits for it, up to a lease (what a crash would have cost).
     */
    private void tellBeforeRelease(long ticket) {
        if (!callbacks.deliverAndWait(ticket, leaseTime.toNanos())) {
            LOG.log(Level.WARNING, "mongolock: election \"" + name + "\": the listener was not told of the revocation"
                    + " before the release (an earlier callback still ran after a lease, " + leaseTime + ", or this thread"
                    + " was interrupted); releasing the lock anyway");
        }
    }

    @Override
    public void close() {
        LockSession session;
        long ticket = 0;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            epoch++;
            if (nextPoll != null) {
                nextPoll.cancel(false);
            }
            session = leading;
            leading = null;
            if (session != null) {
                long term = session.fencingToken();
                ticket = callbacks.add(() -> listener.revoked(term, RevocationReason.LEFT));
            }
        }
        try {
            if (session != null) {
                tellBeforeRelease(ticket);
                release(session, "left the election");
            }
        } finally {
            onLeft.run();
        }
    }

    private void release(LockSession session, String why) {
        try {
            session.close();
        } catch (LockLostException alreadyLost) {
            LOG.log(Level.DEBUG, "mongolock: election \"" + name + "\" " + why + ", its lease was lost already", alreadyLost);
        } catch (LockException notTold) {
            LOG.log(Level.WARNING, "mongolock: election \"" + name + "\" " + why + ", but the lock could not be released ("
                    + notTold.getMessage() + "); another candidate can be elected once its lease (" + leaseTime + ") has ended");
        }
    }

    private void closeLost(LockSession session) {
        try {
            session.close();
        } catch (LockException expected) {
            LOG.log(Level.DEBUG, "mongolock: closed the lost session of election \"" + name + "\"", expected);
        }
    }

    @Override
    public String toString() {
        LockSession session = leading;
        return "Leadership[name=" + name + ", leader=" + isLeader()
                + (session == null ? "" : ", term=" + session.fencingToken()) + "]";
    }
}
