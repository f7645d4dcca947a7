package io.github.mongolock.cdi;

import io.github.mongolock.Locked;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.PermitHold;
import io.github.mongolock.ReadWriteHold;
import io.github.mongolock.ReadWriteLock;
import io.github.mongolock.Permits;
import io.github.mongolock.LockSet;
import io.github.mongolock.OnLeaseLost;
import io.github.mongolock.core.LockArguments;
import jakarta.interceptor.InvocationContext;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * One {@code @Locked} method of one bean class, resolved and checked when the application deployed:
 * the name template, the effective wait and lease times after the configuration lookup, what to do
 * when busy, and how the return type holds the lock. Running it parses nothing. Immutable and thread-safe.
 *
 * @param method    the method, as shown in messages ({@code com.acme.Billing.charge(String, long)})
 * @param names     the lock name templates: one for a single lock, several for a multi-lock
 *                  ({@link LockManager#acquireAll}: the names made for a call, taken together, all or nothing)
 * @param options   the wait and lease times; unset ones are the manager's defaults
 *                  ({@code mongolock.wait-time}, {@code mongolock.lease-time})
 * @param onBusy    what happens when the lock stays busy for the whole wait time
 * @param onLeaseLost what a lost lease does to the running call (checked against the return type at deployment)
 * @param returns   how the return type affects release and skipping
 * @param scheduledRun whether Jakarta Concurrency 3.1 runs the method on a schedule
 *                  ({@code @Asynchronous(runAt = ...)}): a skipped run then returns {@code null}, which keeps the
 *                  schedule going, where a completed future would end it
 * @param permits   0: the method runs under a lock; N from 1: holding one permit of the semaphore of that name with
 *                  limit N ({@link io.github.mongolock.Permits})
 * @param access    {@code EXCLUSIVE}: a lock or a permit; {@code READ} or {@code WRITE}: that access to the read-write
 *                  lock of the name ({@link LockManager#readWriteLock})
 */
record LockedOperation(String method, List<NameTemplate> names, LockOptions options, Locked.OnBusy onBusy,
                       OnLeaseLost onLeaseLost, ReturnKind returns, boolean scheduledRun,
                       int permits, Locked.Access access) {

    private static final System.Logger LOG = System.getLogger(LockedOperation.class.getName());

    LockedOperation {
        Objects.requireNonNull(method, "method");
        names = List.copyOf(names);
        if (names.isEmpty()) {
            throw new IllegalArgumentException("no name template for " + method);
        }
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(onBusy, "onBusy");
        Objects.requireNonNull(onLeaseLost, "onLeaseLost");
        Objects.requireNonNull(returns, "returns");
        Objects.requireNonNull(access, "access");
    }

    /**
     * Acquires the lock, proceeds, and releases it when the method returns or throws, or, for a
     * returned stage, when the stage completes (on whichever thread completes it). While the method
     * runs, nested {@code @Locked} calls of the same name on its thread re-enter; once it has returned
     * a pending stage, no later call re-enters that hold.
     */
    Object invoke(LockManager locks, InvocationContext invocation) throws Exception {
        Hold session = access != Locked.Access.EXCLUSIVE ? readWrite(locks, invocation)
                : permits > 0 ? permit(locks, invocation)
                : names.size() == 1 ? single(locks, invocation) : set(locks, invocation);
        if (session == null) {
            return returns.nothing(scheduledRun);
        }
        Interruption interruption = onLeaseLost == OnLeaseLost.INTERRUPT ? new Interruption(session) : null;
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            closeAfter(failure, session);
            throw failure;
        } finally {
            if (interruption != null) {
                interruption.methodReturned();
            }
        }
        if (returns.asynchronous() && result != null) {
            CompletionStage<?> stage = (CompletionStage<?>) result;
            // The call is over and this thread goes back to its pool; the hold now belongs to the stage.
            // Detached, it is never re-entered by whatever the thread runs next.
            session.detach().run();
            // whenComplete's stage completes after the release, with the method's outcome; a release failure
            // (a lost lease) fails it, or is added as suppressed to the method's own failure.
            CompletionStage<?> released;
            try {
                released = stage.whenComplete((value, failure) -> session.close().run());
            } catch (RuntimeException | Error refused) {
                closeAfter(refused, session); // an odd stage type that takes no callback: do not leak the lock
                throw refused;
            }
            if (returns != ReturnKind.STAGE) {
                if (onLeaseLost == OnLeaseLost.CANCEL) {
                    session.onLeaseLost().accept(() -> cancel(stage));
                }
                return stage;
            }
            // The caller's stage is a future of its own: cancelled at once on a lost lease (CANCEL), before the
            // method's stage, whose release must not make the caller wait for MongoDB; and cancelling it by hand
            // cancels the method's work, whose completion then releases the lock.
            CompletableFuture<Object> callers = new CompletableFuture<>();
            released.whenComplete((value, failure) -> {
                if (failure == null) {
                    callers.complete(value);
                } else {
                    callers.completeExceptionally(failure);
                }
            });
            callers.whenComplete((value, failure) -> {
                if (callers.isCancelled()) {
                    cancel(stage);
                }
            });
            if (onLeaseLost == OnLeaseLost.CANCEL) {
                session.onLeaseLost().accept(() -> callers.cancel(true));
            }
            return callers;
        }
        session.close().run();
        return result;
    }

    /** One permit of the semaphore the name template makes, or null when none was free and the method is skipped. */
    private Hold permit(LockManager locks, InvocationContext invocation) {
        String semaphoreName = names.get(0).render(invocation.getParameters());
        Permits semaphore = locks.permits(semaphoreName, permits);
        if (onBusy == Locked.OnBusy.SKIP) {
            Optional<PermitHold> acquired = semaphore.tryAcquire(1, options);
            if (acquired.isEmpty()) {
                skipped("semaphore " + LockArguments.quote(semaphoreName));
                return null;
            }
            return Hold.of(acquired.get());
        }
        return Hold.of(semaphore.acquire(1, options));
    }

    /** Read or write access to the read-write lock the name template makes, or null when busy and the method is skipped. */
    private Hold readWrite(LockManager locks, InvocationContext invocation) {
        String lockName = names.get(0).render(invocation.getParameters());
        ReadWriteLock lock = locks.readWriteLock(lockName);
        boolean read = access == Locked.Access.READ;
        if (onBusy == Locked.OnBusy.SKIP) {
            Optional<ReadWriteHold> acquired = read ? lock.tryRead(options) : lock.tryWrite(options);
            if (acquired.isEmpty()) {
                skipped("read-write lock " + LockArguments.quote(lockName) + " (" + access + ")");
                return null;
            }
            return Hold.of(acquired.get());
        }
        return Hold.of(read ? lock.read(options) : lock.write(options));
    }

    /** The call's one lock, or null when it stayed busy and the method is skipped. */
    private Hold single(LockManager locks, InvocationContext invocation) {
        String lockName = names.get(0).render(invocation.getParameters());
        if (onBusy == Locked.OnBusy.SKIP) {
            Optional<LockSession> acquired = locks.tryAcquire(lockName, options);
            if (acquired.isEmpty()) {
                skipped("lock " + LockArguments.quote(lockName));
                return null;
            }
            return Hold.of(acquired.get());
        }
        return Hold.of(locks.acquire(lockName, options));
    }

    /**
     * The call's locks, all or nothing, or null when one stayed busy and the method is skipped. Names the
     * arguments make equal are one lock (e.g. a transfer from an account to itself).
     */
    private Hold set(LockManager locks, InvocationContext invocation) {
        List<String> lockNames = new ArrayList<>(names.size());
        for (NameTemplate name : names) {
            lockNames.add(name.render(invocation.getParameters()));
        }
        if (onBusy == Locked.OnBusy.SKIP) {
            Optional<LockSet> acquired = locks.tryAcquireAll(lockNames, options);
            if (acquired.isEmpty()) {
                skipped("locks " + lockNames.stream().map(LockArguments::quote).toList());
                return null;
            }
            return Hold.of(acquired.get());
        }
        return Hold.of(locks.acquireAll(lockNames, options));
    }

    private void skipped(String what) {
        if (LOG.isLoggable(Level.DEBUG)) {
            LOG.log(Level.DEBUG, "mongolock: {0} is busy, skipped {1}", what, method);
        }
    }

    /**
     * What a call holds, a lock's session, a set, a permit or read-write access: the interceptor does the same three
     * things to each. {@code detach} unbinds it from the calling thread once a pending stage was returned; permits are
     * bound to no thread, and read-write access is never held by a method returning a stage (MONGOLOCK-CDI-033).
     */
    private record Hold(Runnable detach, Consumer<Runnable> onLeaseLost, Runnable close) {
        static Hold of(LockSession session) {
            return new Hold(session::detach, session::onLeaseLost, session::close);
        }

        static Hold of(LockSet set) {
            return new Hold(set::detach, set::onLeaseLost, set::close);
        }

        static Hold of(PermitHold hold) {
            return new Hold(() -> { }, hold::onLeaseLost, hold::close);
        }

        static Hold of(ReadWriteHold hold) {
            return new Hold(() -> { }, hold::onLeaseLost, hold::close);
        }
    }

    /** {@link OnLeaseLost#CANCEL}: a stage that cannot be turned into a future cannot be cancelled, which is logged. */
    private void cancel(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().cancel(true);
        } catch (UnsupportedOperationException notCancellable) {
            LOG.log(Level.WARNING, "mongolock: the lease of the lock held by " + method + " was lost, and the stage it"
                    + " returned (" + stage.getClass().getName() + ") cannot be cancelled: it runs on unprotected");
        }
    }

    /**
     * {@link OnLeaseLost#INTERRUPT} for one call: interrupts the calling thread if the lease is lost while
     * the method runs, and clears that interrupt when the method has returned, so the thread does not go
     * back to its pool interrupted. An interrupt from elsewhere is left alone unless the loss's came too.
     */
    private static final class Interruption {
        private final Thread caller = Thread.currentThread();
        /** Guarded by {@code this}. */
        private boolean returned;
        /** Guarded by {@code this}. */
        private boolean interrupted;

        Interruption(Hold session) {
            session.onLeaseLost().accept(this::leaseLost);
        }

        private synchronized void leaseLost() {
            if (!returned) {
                interrupted = true;
                caller.interrupt();
            }
        }

        synchronized void methodReturned() {
            returned = true;
            if (interrupted) {
                Thread.interrupted();
            }
        }
    }

    private static void closeAfter(Throwable failure, Hold session) {
        try {
            session.close().run();
        } catch (RuntimeException releaseFailure) {
            failure.addSuppressed(releaseFailure);
        }
    }

    @Override
    public String toString() {
        return "@Locked " + method + " [name" + (names.size() == 1 ? "=" + names.get(0) : "s=" + names) + ", waitTime="
                + options.waitTime().map(Duration::toString).orElse("default") + ", leaseTime="
                + options.leaseTime().map(Duration::toString).orElse("default") + ", holdAtLeast=" + options.holdAtLeast()
                + ", onBusy=" + onBusy + ", onLeaseLost=" + onLeaseLost + (permits > 0 ? ", permits=" + permits : "")
                + (access != Locked.Access.EXCLUSIVE ? ", access=" + access : "") + (scheduledRun ? ", scheduled by @Asynchronous(runAt)" : "") + "]";
    }
}
