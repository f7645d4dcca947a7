package io.github.mongolock.core;

import io.github.mongolock.LockException;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockListener;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockSet;
import io.github.mongolock.LockTracing;
import io.github.mongolock.Permits;
import io.github.mongolock.ReadWriteLock;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The lock algorithm, written once for every {@link LockStore}: validation, the wait loop with local wake-ups and
 * jittered backoff, lease renewal and shutdown. The store side of a fresh attempt (the waiter's lease rule, the
 * takeover, the clean-up) lives in {@link FreshAttempts}, the wait loop's steps that change what is held or queued in
 * {@link Acquisitions}, what the owner does to a held lock afterwards in {@link OwnedLocks}, and the semaphores and
 * read-write locks in {@link SessionPrimitives}.
 *
 * <p><b>Owners.</b> Every fresh acquisition writes an owner id of its own, {@code <ownerPrefix>:<acquisition number>};
 * {@code ownerPrefix} must be unique per coordinator (it contains a random nonce). Re-entry is for the caller that is
 * inside a hold: the hold is bound to the thread that acquired it until it is closed or
 * {@link LockSession#detach() detached}, and only a thread bound to it re-enters. One coordinator holds at most one
 * acquisition per name: its other callers wait for it locally, without a round trip.
 *
 * <p><b>Shutdown.</b> {@link #close()} refuses new acquisitions, waits for the store calls under way (so a grant already
 * on its way is registered, then released), releases everything still held, and returns only when none of its calls
 * can still use the store. Thread-safe.
 */
public final class LockCoordinator implements LockManager, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LockCoordinator.class.getName());
    /**
     * How long close() waits for store calls under way before releasing what is held. Every call is
     * bounded by the client's timeouts; this only keeps a hung client from hanging the shutdown.
     */
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(30);

    private final LockStore store;
    private final String ownerPrefix;
    private final Duration defaultLease;
    private final Duration defaultWait;
    private final MonotonicClock clock;
    private final RetryBackoff backoff;
    private final FreshAttempts fresh;
    private final ReleaseSignals signals = new ReleaseSignals();
    private final LockEvents events;
    private final LocalWaiters waiters = new LocalWaiters();
    /** This manager's place in lock queues, and the quiet its queued waiters keep. */
    private final QueuePresence queues;
    private final OwnedLocks owned;
    private final LeaseLosses losses;
    private final StoreCallGate calls = new StoreCallGate();
    private final SessionRenewer renewer;
    private final Sessions sessions;
    private final ReleaseFeed releaseFeed;
    private final ReleaseFeed.Listener feedListener;
    private final LockMetrics metrics;
    private final ReportedAcquisitions reported;
    private final AutoCloseable observation;
    private final Acquisitions acquisitions;
    private final SessionPrimitives primitives;
    private final LockSets sets;
    private volatile boolean closed;

    public LockCoordinator(LockStore store, String ownerPrefix, Duration defaultLease, Duration defaultWait,
                           MonotonicClock clock, List<LockListener> listeners) {
        this(store, ownerPrefix, defaultLease, defaultWait, clock, listeners, ReleaseFeed.NONE);
    }

    /** @param releaseFeed wakes waiters on releases made by other machines; {@link ReleaseFeed#NONE} to poll only */
    public LockCoordinator(LockStore store, String ownerPrefix, Duration defaultLease, Duration defaultWait,
                           MonotonicClock clock, List<LockListener> listeners, ReleaseFeed releaseFeed) {
        this(store, ownerPrefix, defaultLease, defaultWait, clock, listeners, releaseFeed, LockMetrics.NONE);
    }

    /** @param metrics told of acquisitions, holds and losses, and observing this coordinator until it closes */
    public LockCoordinator(LockStore store, String ownerPrefix, Duration defaultLease, Duration defaultWait,
                           MonotonicClock clock, List<LockListener> listeners, ReleaseFeed releaseFeed,
                           LockMetrics metrics) {
        this(store, ownerPrefix, defaultLease, defaultWait, clock, listeners, releaseFeed, RetryBackoff.standard(), metrics,
                LockTracing.NONE);
    }

    /** @param tracing told of each acquire call's wait; {@link LockTracing#NONE} is never called */
    public LockCoordinator(LockStore store, String ownerPrefix, Duration defaultLease, Duration defaultWait,
                           MonotonicClock clock, List<LockListener> listeners, ReleaseFeed releaseFeed,
                           LockMetrics metrics, LockTracing tracing) {
        this(store, ownerPrefix, defaultLease, defaultWait, clock, listeners, releaseFeed, RetryBackoff.standard(), metrics,
                tracing);
    }

    LockCoordinator(LockStore store, String ownerPrefix, Duration defaultLease, Duration defaultWait,
                    MonotonicClock clock, List<LockListener> listeners, ReleaseFeed releaseFeed, RetryBackoff backoff) {
        this(store, ownerPrefix, defaultLease, defaultWait, clock, listeners, releaseFeed, backoff, LockMetrics.NONE,
                LockTracing.NONE);
    }

    LockCoordinator(LockStore store, String ownerPrefix, Duration defaultLease, Duration defaultWait,
                    MonotonicClock clock, List<LockListener> listeners, ReleaseFeed releaseFeed, RetryBackoff backoff,
                    LockMetrics metrics, LockTracing tracing) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.reported = new ReportedAcquisitions(this, clock, metrics, Objects.requireNonNull(tracing, "tracing"));
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        this.releaseFeed = Objects.requireNonNull(releaseFeed, "releaseFeed");
        this.store = Objects.requireNonNull(store, "store");
        this.ownerPrefix = Objects.requireNonNull(ownerPrefix, "ownerPrefix");
        this.defaultLease = LockArguments.checkLease(defaultLease, "leaseTime");
        this.defaultWait = LockArguments.checkWait(defaultWait, "waitTime");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.events = new LockEvents(listeners, "mongolock-notices-" + ownerPrefix);
        this.sessions = new Sessions(store, clock, ownerPrefix, this::sessionOpened);
        this.fresh = new FreshAttempts(store, clock, ownerPrefix, sessions);
        this.queues = new QueuePresence(store, ownerPrefix, clock, backoff.maxWhilePushed());
        this.losses = new LeaseLosses(store, signals, events, metrics, "mongolock-clean-up-" + ownerPrefix);
        this.owned = new OwnedLocks(store, clock, signals, events, fresh, sessions, this::tracked, metrics, losses);
        PermitReports permitReports = new PermitReports(events, metrics, tracing, clock);
        this.primitives = new SessionPrimitives(store, sessions, clock, backoff, ownerPrefix, defaultLease, defaultWait, events,
                permitReports, this::startFeed);
        this.feedListener = new ReleaseNotices(ownerPrefix, signals, primitives.permitSignals, primitives.readWriteSignals);
        this.renewer = new SessionRenewer(store, clock, "mongolock-renewer-" + ownerPrefix, sessions, owned::all,
                fresh::pending, losses, primitives.sessionHolders());
        this.acquisitions = new Acquisitions(this, calls, fresh, owned, queues, waiters, renewer, events);
        this.sets = new LockSets(this, clock, this.defaultWait, this.defaultLease);
        this.observation = metrics.observe(new CoordinatorObservation(ownerPrefix, owned, releaseFeed, permitReports));
    }

    @Override
    public LockSession acquire(String name, Duration waitFor) {
        return acquire(name, LockOptions.defaults().waitTime(LockArguments.checkWait(waitFor, "waitFor")));
    }

    @Override
    public LockSession acquire(String name, LockOptions options) {
        return reported.acquire(name, options, true);
    }

    @Override
    public Optional<LockSession> tryAcquire(String name, LockOptions options) {
        return Optional.ofNullable(reported.acquire(name, options, false));
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        ensureOpen();
        return store.inspect(LockArguments.checkName(name));
    }

    @Override
    public LockSet acquireAll(Collection<String> names, LockOptions options) {
        return sets.acquire(names, options, true).orElseThrow();
    }

    @Override
    public Optional<LockSet> tryAcquireAll(Collection<String> names, LockOptions options) {
        return sets.acquire(names, options, false);
    }

    /** What the push wake-up is doing (for health checks and diagnostics). */
    public ReleaseFeed.Status releaseFeedStatus() {
        return releaseFeed.status();
    }

    /** @deprecated owners are per acquisition now; use {@link LockSession#owner()} (a held lock's here, else the prefix) */
    @Deprecated
    public String currentOwner() {
        return owned.boundTo(Thread.currentThread()).orElse(ownerPrefix);
    }

    /**
     * @param span told of a hand-over; {@link LockTracing.Span#NONE} when nothing is traced
     * @return the granted session, or null when the lock stayed busy and {@code throwWhenBusy} is false
     */
    LockSession obtain(String name, LockOptions options, boolean throwWhenBusy, String group, LockTracing.Span span) {
        ensureOpen();
        LockArguments.checkName(name);
        Objects.requireNonNull(options, "options");
        Duration wait = LockArguments.checkWait(options.waitTime().orElse(defaultWait), "waitTime");
        Duration lease = LockArguments.checkLease(options.leaseTime().orElse(defaultLease), "leaseTime");
        LockArguments.checkHoldAtLeast(options.holdAtLeast(), "holdAtLeast");
        Thread caller = Thread.currentThread();
        long waitNanos = LockArguments.saturatedNanos(wait);
        // A nested call re-enters at once, joining no line: it never waits (an interrupted waiter still fails below).
        LockSession nested = waitNanos > 0 && caller.isInterrupted() ? null : acquisitions.reenterIfInside(name, caller);
        if (nested != null) {
            return nested;
        }
        long start = clock.nanoTime();
        // Join before the first attempt so a release between that attempt and the park is seen.
        ReleaseSignals.Signal signal = waitNanos > 0 ? signals.join(name) : null;
        LocalWaiters.Ticket ticket = waitNanos > 0 ? waiters.join(name, lease) : null;
        boolean woken = false;
        boolean queued = false;
        FreshAttempts.Outcome lastAnswer = null; // the store's last word on the lock, for the timeout's message
        LockSession outcome = null;
        try {
            for (int attempt = 0; ; attempt++) {
                ensureOpen();
                if (signal != null && caller.isInterrupted()) {
                    throw AcquireFailures.interrupted(name, null);
                }
                long generation = signal == null ? 0 : signal.generation();
                HeldLock handed = ticket == null ? null : ticket.takeGranted();
                if (handed != null) {
                    span.handedOver();
                    outcome = acquisitions.takeHandedOver(handed);
                    return outcome;
                }
                HeldLock current = owned.get(name);
                if (current != null && current.isBoundTo(caller)) {
                    outcome = acquisitions.reenter(current);
                    if (outcome != null) {
                        return outcome;
                    }
                    continue; // released from another thread meanwhile: acquire afresh
                }
                FreshAttempts.Outcome busy;
                boolean pushed = releaseFeed.status() == ReleaseFeed.Status.PUSHING;
                // A wake-up since the quiet was set voids it, and the first caller to see that claims the poll: the
                // others stay quiet (QueuePresence), so one notice sends one caller of this manager to the store.
                long quiet = signal == null || !pushed ? 0 : queues.quietOrClaimPoll(name, generation);
                boolean heldHere = current != null && current.status == HeldLock.Status.HELD; // no round trip needed to know
                if (heldHere) {
                    busy = FreshAttempts.Outcome.busy(Optional.of(current.owner), null, null, false);
                } else if (quiet > 0) {
                    // Another caller of this manager asked a moment ago; a pushed release notice wakes one of us.
                    busy = FreshAttempts.Outcome.busy(Optional.empty(), null, Duration.ofNanos(quiet), true);
                } else {
                    Acquisitions.FreshAttempt tried = acquisitions.acquireFresh(name, lease, group);
                    if (tried.hold() != null) {
                        outcome = tried.hold();
                        return outcome;
                    }
                    busy = tried.busy();
                    lastAnswer = busy;
                    if (signal != null) {
                        // Held by another machine: only a pushed notice can wake us before the backoff.
                        startFeed();
                        boolean inQueue = acquisitions.queueUp(name, busy);
                        queued |= inQueue;
                        if (inQueue && pushed) {
                            queues.asked(name, busy.retryBy(), generation);
                        }
                    }
                }
                long left = waitNanos - (clock.nanoTime() - start);
                if (left <= 0 || signal == null) {
                    if (ticket != null) {
                        // A hand-over may have landed while this caller gave up: then it has the lock after all.
                        handed = acquisitions.leaveLine(name, ticket);
                        ticket = null;
                        if (handed != null) {
                            span.handedOver();
                            outcome = acquisitions.takeHandedOver(handed);
                            return outcome;
                        }
                    }
                    if (throwWhenBusy) {
                        throw AcquireFailures.timeout(name, wait, busy.holder().isEmpty() && lastAnswer != null ? lastAnswer : busy);
                    }
                    return null;
                }
                // No quick polls when a wake-up will come: queued with the feed up (the notice; the lease watch's bound
                // still holds), or held by another caller here (its release or hand-over; the pause covers a lost lease).
                int ramp = (pushed && busy.queued()) || heldHere ? RetryBackoff.FULL : attempt;
                long pause = Math.min(backoff.pauseNanos(ramp, busy.retryBy(), pushed), left);
                woken = signal.awaitChange(generation, pause, ticket);
            }
        } catch (InterruptedException interruptedWhileParked) {
            throw AcquireFailures.interrupted(name, interruptedWhileParked);
        } finally {
            if (ticket != null) {
                HeldLock handed = acquisitions.leaveLine(name, ticket);
                if (handed != null) {
                    // Handed over while this caller was leaving with an exception: it does not want it now.
                    acquisitions.giveBack(handed);
                }
            }
            if (signal != null) {
                if (woken && outcome == null) {
                    signals.released(name); // leaving with a wake-up meant for a waiter: pass it on
                }
                signals.leave(name, signal);
            }
            if (queued && outcome == null) {
                acquisitions.leaveQueue(name);
            }
        }
    }

    /** For test kits: renews and checks the sessions now; whether {@code owner} is an acquisition held here. */
    public boolean checkSessionsNow(String owner) {
        boolean held = owned.holds(owner); // before the check, which may find the loss at once
        renewer.checkNow();
        return held;
    }

    /** For test kits: checks the sessions now, then waits until {@code owner}'s permits or access were reported lost. */
    public boolean checkPermitsNow(String owner, long timeoutMillis) throws InterruptedException {
        return checkSessionsNow(owner) | primitives.awaitLossTold(owner, timeoutMillis);
    }

    private void startFeed() {
        releaseFeed.start(feedListener);
    }

    private void sessionOpened(Session session) {
        renewer.tracked(session); // renewed from now on, even before a lock is granted under it
    }

    private void tracked(HeldLock lock) {
        renewer.tracked(lock);
    }

    boolean isHeld(HeldLock lock) {
        return !closed && lock.isHeldAt(clock.nanoTime());
    }

    void release(HeldLock lock) {
        calls.enterRelease();
        try {
            owned.release(lock, closed ? null : waiters);
        } finally {
            calls.exit();
        }
    }

    /**
     * Refuses new acquisitions, stops renewals and the push feed, waits for the store calls under way, then releases
     * every lock still held, whatever its hold count (on an interrupted thread too), and wakes all waiters, who then
     * fail. Locks MongoDB could not be told about are logged: they free themselves when their leases run out.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        signals.releasedAll();
        renewer.close();
        releaseFeed.close();
        if (!calls.closeAndDrain(LockArguments.saturatedNanos(CLOSE_GRACE))) {
            LOG.log(Level.WARNING, "mongolock: store calls of " + ownerPrefix + " were still running " + CLOSE_GRACE
                    + " after close() began; releasing held locks anyway");
        }
        List<String> unreleased = new ArrayList<>(owned.releaseAll());
        unreleased.addAll(fresh.abandonOrphans());
        primitives.close(); // gives back every permit and read-write hold held here
        sessions.endAll(); // whatever could not be released is free for waiters at once
        queues.leaveAll();
        events.close();
        losses.close();
        try {
            observation.close();
        } catch (Exception broken) {
            LOG.log(Level.WARNING, "mongolock: the metrics observation of " + ownerPrefix + " failed to close", broken);
        }
        signals.releasedAll();
        if (!unreleased.isEmpty()) {
            LOG.log(Level.WARNING, "mongolock could not release " + unreleased
                    + " on close; they free themselves when their leases run out");
        }
    }

    @Override // the store must keep semaphores (LockStore.permitStore)
    public Permits permits(String name, int limit) {
        ensureOpen();
        return primitives.permits(name, limit);
    }

    @Override // the store must keep read-write locks (LockStore.readWriteStore)
    public ReadWriteLock readWriteLock(String name) {
        ensureOpen();
        return primitives.readWriteLock(name);
    }

    private void ensureOpen() {
        if (closed) {
            throw closedException();
        }
    }

    boolean isClosed() {
        return closed;
    }

    LockException closedException() {
        return new LockException("This lock manager (" + ownerPrefix + ") is closed: create a new one to acquire locks.");
    }
}
