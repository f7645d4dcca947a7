package io.github.mongolock.core;

import io.github.mongolock.LockException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Renews every lease a manager holds from one scheduler thread, every lease/3 (of the shortest
 * lease held), in batches of {@value #BATCH} claims per {@link LockStore#renew} call: a constant
 * number of round trips per interval however many locks are held, and no thread per lock.
 *
 * <p>A claim the store no longer confirms is reported lost. When the store cannot be reached,
 * leases stay valid until a whole lease time has passed since their last confirmation, then they
 * are reported lost too: by then the store may have handed the lock to someone else. That moment is
 * watched by a second task on a second scheduler thread, due at the earliest end of a confirmed
 * lease, so the loss is reported when the lease ends (before any waiter's watch can end) even while a
 * renewal call hangs until the store's timeout. The renewer is idle (nothing scheduled) while nothing is held.
 */
final class LeaseRenewer implements AutoCloseable {

    static final int BATCH = 10_000;
    private static final System.Logger LOG = System.getLogger(LeaseRenewer.class.getName());

    private final LockStore store;
    private final MonotonicClock clock;
    private final Supplier<Collection<HeldLock>> heldLocks;
    private final BiConsumer<HeldLock, String> onLost;
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

    LeaseRenewer(LockStore store, MonotonicClock clock, String threadName,
                 Supplier<Collection<HeldLock>> heldLocks, BiConsumer<HeldLock, String> onLost) {
        this.store = store;
        this.clock = clock;
        this.heldLocks = heldLocks;
        this.onLost = onLost;
        // Two threads: renewals (never two at once, each plans the next) and the deadline check, which must
        // not wait behind a renewal call that hangs until the store's timeout.
        this.executor = new ScheduledThreadPoolExecutor(2, new DaemonThreads(threadName));
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** Makes sure a renewal runs within {@code lock}'s renewal period, and its lease's end is watched. */
    synchronized void tracked(HeldLock lock) {
        long due = clock.nanoTime() + lock.renewalPeriodNanos();
        if (next == null || due - nextRunAtNanos < 0) {
            schedule(due);
        }
        planDeadlineCheck(lock.confirmedUntilNanos());
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

    /** Reports every lease whose confirmed end has passed, then waits for the next earliest end. */
    private void checkDeadlines() {
        synchronized (this) {
            deadlineCheck = null;
        }
        // One instant for both decisions: a lease ending between a separate check and planning would be
        // neither reported nor planned (two locks granted microseconds apart did exactly that).
        long now = clock.nanoTime();
        OptionalLong next = OptionalLong.empty();
        for (HeldLock lock : heldLocks.get()) {
            if (lock.status != HeldLock.Status.HELD) {
                continue;
            }
            if (!lock.confirmedAt(now)) {
                onLost.accept(lock, "its lease (" + lock.lease + ") ended unconfirmed: no renewal reached MongoDB in time");
            } else if (next.isEmpty() || lock.confirmedUntilNanos() - next.getAsLong() < 0) {
                next = OptionalLong.of(lock.confirmedUntilNanos());
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
            LOG.log(Level.ERROR, "mongolock lease renewal failed unexpectedly; retrying at the next interval", unexpected);
        } finally {
            planNext(startedAt);
        }
    }

    /** Counts the next interval from this run's start, so a slow renewal does not stretch the interval. */
    private synchronized void planNext(long lastStartNanos) {
        next = null;
        long shortest = Long.MAX_VALUE;
        for (HeldLock lock : heldLocks.get()) {
            if (lock.status == HeldLock.Status.HELD) {
                shortest = Math.min(shortest, lock.renewalPeriodNanos());
            }
        }
        if (shortest != Long.MAX_VALUE) {
            schedule(lastStartNanos + shortest);
        }
        earliestLeaseEnd().ifPresent(this::planDeadlineCheck);
    }

    /**
     * The earliest confirmed end of a lease still held that is yet to come, if any. An end already passed
     * whose loss could not be recorded (the owner was mid-call) is left to that call and the next renewal.
     */
    private OptionalLong earliestLeaseEnd() {
        OptionalLong earliest = OptionalLong.empty();
        long now = clock.nanoTime();
        for (HeldLock lock : heldLocks.get()) {
            if (lock.status == HeldLock.Status.HELD && lock.confirmedAt(now)
                    && (earliest.isEmpty() || lock.confirmedUntilNanos() - earliest.getAsLong() < 0)) {
                earliest = OptionalLong.of(lock.confirmedUntilNanos());
            }
        }
        return earliest;
    }

    void renewAll() {
        List<HeldLock> batch = new ArrayList<>();
        for (HeldLock lock : heldLocks.get()) {
            if (lock.status == HeldLock.Status.HELD) {
                batch.add(lock);
                if (batch.size() == BATCH) {
                    renew(batch);
                    batch = new ArrayList<>();
                }
            }
        }
        if (!batch.isEmpty()) {
            renew(batch);
        }
    }

    private void renew(List<HeldLock> batch) {
        List<LeaseClaim> claims = new ArrayList<>(batch.size());
        for (HeldLock lock : batch) {
            claims.add(new LeaseClaim(lock.name, lock.owner, lock.leaseId));
        }
        long sentAt = clock.nanoTime();
        RenewalOutcome outcome;
        try {
            outcome = store.renew(claims);
        } catch (LockException storeDown) {
            if (!failing) {
                LOG.log(Level.WARNING, "mongolock could not renew " + batch.size()
                        + " lease(s); held locks stay valid until their lease runs out unconfirmed", storeDown);
                failing = true;
            }
            long now = clock.nanoTime();
            for (HeldLock lock : batch) {
                if (!lock.confirmedAt(now)) {
                    onLost.accept(lock, "its lease (" + lock.lease + ") could not be renewed for a whole lease time: "
                            + storeDown.getMessage());
                }
            }
            return;
        }
        if (failing) {
            LOG.log(Level.INFO, "mongolock lease renewal works again");
            failing = false;
        }
        long answeredAt = clock.nanoTime();
        for (HeldLock lock : batch) {
            if (outcome.confirmed().contains(lock.name)) {
                if (!lock.confirm(sentAt, answeredAt)) {
                    onLost.accept(lock, "its lease (" + lock.lease + ") had ended unconfirmed before this renewal's answer arrived");
                }
            } else {
                onLost.accept(lock, outcome.lossReason(lock.name));
            }
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
