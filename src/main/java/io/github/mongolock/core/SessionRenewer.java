package io.github.mongolock.core;

import io.github.mongolock.LockException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Renews a manager's sessions from one scheduler thread, every lease/3 of the shortest session lease: one
 * single-document write per session, however many locks are held under it, and no thread per lock.
 *
 * <p>When a renewal finds the session ended (a waiter ended it, finding it unrenewed for a lease), every lock
 * held under it is reported lost. When the store cannot be reached, the locks stay valid until the session's
 * confirmed lease ends, then they are reported lost and the session is over for good: it is ended in the store
 * as soon as that can be done, and never renewed again, so no lock of it stays taken under a session that lives
 * on. That moment is watched by a second task on a second scheduler thread, due at the earliest end of a
 * confirmed session lease, so the loss is reported when the lease ends (before any waiter's watch can end)
 * even while a renewal call hangs until the store's timeout.
 *
 * <p>Some renewals also <em>check</em> the session's locks ({@link LockStore#checkSession}): after a request
 * under the session had an unknown outcome, when the store's check counter moved (an operator released one of
 * them), and every {@value Session#CHECK_EVERY} renewals. A held lock no longer found is reported lost; a lock
 * found under the session whose owner is no acquisition this manager knows (a grant that landed after its
 * clean-up, a release that never landed) is freed by a compare-and-set on its owner and version
 * (spec/MongoLockSessions.tla, finding 1: otherwise the session's renewals would keep such a lock for ever).
 */
final class SessionRenewer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(SessionRenewer.class.getName());

    private final LockStore store;
    private final MonotonicClock clock;
    private final Sessions sessions;
    private final Supplier<Collection<HeldLock>> heldLocks;
    /** The owner ids of acquisitions whose grant may be in the store but is not among {@code heldLocks} yet. */
    private final Supplier<Collection<String>> pendingOwners;
    /** Told of every lock lost: one by one as the check finds them, all of a session at once when it ends. */
    private final LeaseLosses losses;
    /** Permits held under the sessions: they keep a session from idling, are lost with it and checked with it. */
    private final SessionHolders others;
    private final ScheduledThreadPoolExecutor executor;

    /** Guarded by {@code this}. */
    private ScheduledFuture<?> next;
    /** Guarded by {@code this}. */
    private long nextRunAtNanos;
    /** Only touched by the renewal thread. */
    private boolean failing;
    /** Guarded by {@code this}: the task that reports leases ending unconfirmed. */
    private ScheduledFuture<?> deadlineCheck;
    /** Guarded by {@code this}. */
    private long deadlineCheckAtNanos;

    SessionRenewer(LockStore store, MonotonicClock clock, String threadName, Sessions sessions,
                   Supplier<Collection<HeldLock>> heldLocks, Supplier<Collection<String>> pendingOwners,
                   LeaseLosses losses, SessionHolders others) {
        this.others = others;
        this.store = store;
        this.clock = clock;
        this.sessions = sessions;
        this.heldLocks = heldLocks;
        this.pendingOwners = pendingOwners;
        this.losses = losses;
        // Three threads: renewals (never two at once, each plans the next), the deadline check, which must not wait
        // behind a renewal call that hangs until the store's timeout, and the end of a lapsed session, which may hang
        // as long and must hold up neither.
        this.executor = new ScheduledThreadPoolExecutor(3, new DaemonThreads(threadName));
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** Makes sure {@code session} is renewed within its renewal period, and its lease's end is watched. */
    synchronized void tracked(Session session) {
        long due = clock.nanoTime() + session.renewalPeriodNanos();
        if (next == null || due - nextRunAtNanos < 0) {
            schedule(due);
        }
        planDeadlineCheck(session.confirmedUntilNanos());
    }

    /** Renews, and checks the locks of, every live session now rather than at the next interval. */
    synchronized void checkNow() {
        for (Session session : sessions.live()) {
            session.checkNext();
        }
        schedule(clock.nanoTime());
    }

    /** A lock was granted under its session: the session's lease end is watched from now on. */
    void tracked(HeldLock lock) {
        tracked(lock.session);
    }

    /** Makes sure the deadline check runs by {@code dueNanos}. */
    private synchronized void planDeadlineCheck(long dueNanos) {
        if (executor.isShutdown() || (deadlineCheck != null && dueNanos - deadlineCheckAtNanos >= 0)) {
            return;
        }
        if (deadlineCheck != null) {
            deadlineCheck.cancel(false);
        }
        deadlineCheckAtNanos = dueNanos;
        try {
            deadlineCheck = executor.schedule(this::checkDeadlines, Math.max(dueNanos - clock.nanoTime(), 0),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            deadlineCheck = null;
        }
    }

    /** Reports every session whose confirmed lease has passed, then waits for the next earliest end. */
    private void checkDeadlines() {
        synchronized (this) {
            deadlineCheck = null;
        }
        // One instant for both decisions: a lease ending between a separate check and planning would be
        // neither reported nor planned.
        long now = clock.nanoTime();
        OptionalLong next = OptionalLong.empty();
        for (Session session : sessions.live()) {
            if (!session.confirmedAt(now)) {
                lapsed(session, "its session's lease (" + session.lease + ") ended unconfirmed: no renewal reached MongoDB in time");
            } else if (next.isEmpty() || session.confirmedUntilNanos() - next.getAsLong() < 0) {
                next = OptionalLong.of(session.confirmedUntilNanos());
            }
        }
        next.ifPresent(this::planDeadlineCheck);
    }

    private void schedule(long dueNanos) {
        if (executor.isShutdown()) {
            return;
        }
        if (next != null) {
            next.cancel(false);
        }
        nextRunAtNanos = dueNanos;
        try {
            next = executor.schedule(this::run, Math.max(dueNanos - clock.nanoTime(), 0), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            next = null; // the manager is closing: its locks are being released, nothing to renew
        }
    }

    private void run() {
        long startedAt = clock.nanoTime();
        try {
            renewAll();
        } catch (Throwable unexpected) {
            // Whatever went wrong, the next interval must still be planned: a renewer that stopped
            // silently would let every lease of this manager lapse.
            LOG.log(Level.ERROR, "mongolock session renewal failed unexpectedly; retrying at the next interval", unexpected);
        } finally {
            planNext(startedAt);
        }
    }

    /** Counts the next interval from this run's start, so a slow renewal does not stretch the interval. */
    private synchronized void planNext(long lastStartNanos) {
        next = null;
        long shortest = Long.MAX_VALUE;
        OptionalLong earliestEnd = OptionalLong.empty();
        long now = clock.nanoTime();
        for (Session session : sessions.live()) {
            shortest = Math.min(shortest, session.renewalPeriodNanos());
            if (session.confirmedAt(now) && (earliestEnd.isEmpty() || session.confirmedUntilNanos() - earliestEnd.getAsLong() < 0)) {
                earliestEnd = OptionalLong.of(session.confirmedUntilNanos());
            }
        }
        if (shortest != Long.MAX_VALUE) {
            schedule(lastStartNanos + shortest);
        }
        earliestEnd.ifPresent(this::planDeadlineCheck);
    }

    /** One renewal round: every live session once. */
    void renewAll() {
        Collection<HeldLock> all = heldLocks.get();
        for (Session session : sessions.live()) {
            List<HeldLock> under = heldUnder(session, all);
            long now = clock.nanoTime();
            boolean othersUnder = others.anyUnder(session);
            if (under.isEmpty() && !othersUnder && now - session.lastUsedNanos() > LockArguments.saturatedNanos(Sessions.IDLE_KEEP)) {
                // Nothing held or granted under it for a while: ended, so it is not renewed for ever.
                session.end("it was idle");
                sessions.forget(session);
                sessions.endInStore(session);
                continue;
            }
            if (!under.isEmpty() || othersUnder) {
                session.used(now);
            }
            renew(session, under);
        }
    }

    private static List<HeldLock> heldUnder(Session session, Collection<HeldLock> all) {
        List<HeldLock> under = new ArrayList<>();
        for (HeldLock lock : all) {
            if (lock.session == session && lock.status == HeldLock.Status.HELD) {
                under.add(lock);
            }
        }
        return under;
    }

    private void renew(Session session, List<HeldLock> under) {
        long sentAt = clock.nanoTime();
        SessionRenewal renewal;
        try {
            renewal = store.renewSession(session.id);
        } catch (LockException storeDown) {
            if (!failing) {
                LOG.log(Level.WARNING, "mongolock could not renew " + session + " (" + under.size()
                        + " lock(s) held under it); they stay valid until its lease runs out unconfirmed", storeDown);
                failing = true;
            }
            if (!session.confirmedAt(clock.nanoTime())) {
                lapsed(session, "its session's lease (" + session.lease + ") could not be renewed for a whole lease time: "
                        + storeDown.getMessage());
            }
            return;
        }
        if (failing) {
            LOG.log(Level.INFO, "mongolock session renewal works again");
            failing = false;
        }
        if (!renewal.live()) {
            ended(session, "its session ended: another manager found it unrenewed for a whole lease ("
                    + session.lease + ") and took its locks over, or an operator ended it");
            return;
        }
        if (!session.confirm(sentAt, clock.nanoTime(), renewal.checks())) {
            lapsed(session, "its session's lease (" + session.lease + ") had ended unconfirmed before the renewal's answer arrived");
            return;
        }
        if (session.takeCheck()) {
            check(session, under);
        }
    }

    /**
     * Reads the session's locks: reports the held ones not found (with the store's reason), and frees those whose
     * owner this manager does not know. The owners known are read <em>after</em> the store's answer: an
     * acquisition granted before the read is then either still pending or registered (pending ends only after
     * registration), or it was released since, which moved the version the clean-up's compare-and-set names.
     */
    private void check(Session session, List<HeldLock> heldBefore) {
        List<LeaseClaim> claims = new ArrayList<>(heldBefore.size());
        for (HeldLock lock : heldBefore) {
            claims.add(new LeaseClaim(lock.name, lock.owner, lock.leaseId));
        }
        SessionCheck found;
        try {
            found = store.checkSession(session.id, claims);
        } catch (LockException storeDown) {
            session.checkSoon();
            return;
        }
        Set<String> foundOwners = new HashSet<>();
        for (SessionCheck.HeldUnder lock : found.held()) {
            foundOwners.add(lock.owner() + "/" + lock.leaseId());
        }
        for (HeldLock lock : heldBefore) {
            if (!foundOwners.contains(lock.owner + "/" + lock.leaseId)) {
                losses.leaseLost(lock, found.lossReason(lock.name));
            }
        }
        Set<String> known = new HashSet<>(pendingOwners.get());
        for (HeldLock lock : heldLocks.get()) {
            if (lock.status == HeldLock.Status.HELD) {
                known.add(lock.owner);
            }
        }
        for (SessionCheck.HeldUnder lock : found.held()) {
            if (!known.contains(lock.owner())) {
                freeOrphan(session, lock);
            }
        }
        try {
            others.check(session);
        } catch (LockException storeDown) {
            session.checkSoon();
        }
    }

    private void freeOrphan(Session session, SessionCheck.HeldUnder orphan) {
        try {
            // Abandoned, not released: its grant was never answered, so it may not have completed (the token floor).
            OwnedLocks.withoutInterrupt(() -> {
                store.abandon(orphan.name(), orphan.owner());
                return true;
            });
            LOG.log(Level.INFO, "mongolock freed lock \"{0}\", held under {1} by {2}, an acquisition this manager no longer"
                    + " knows (a request whose outcome was unknown)", orphan.name(), session, orphan.owner());
        } catch (LockException storeDown) {
            session.checkSoon();
        }
    }

    /** The store says {@code session} ended: every lock of it is lost. */
    private void ended(Session session, String reason) {
        session.end(reason);
        sessions.forget(session);
        losses.sessionLost(heldUnder(session, heldLocks.get()), reason);
        others.sessionLost(session, reason);
    }

    /**
     * {@code session}'s confirmed lease ran out: every lock of it is lost, and the session is over for good. It is
     * ended in the store too, so that waiters may take its locks at once (best effort, on the other thread: the
     * store may be what is failing).
     */
    private void lapsed(Session session, String reason) {
        if (session.isEnded()) {
            return;
        }
        ended(session, reason);
        try {
            executor.execute(() -> sessions.endInStore(session));
        } catch (RejectedExecutionException closing) {
            LOG.log(Level.DEBUG, "{0} is not ended in the store: the manager is closing", session);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
