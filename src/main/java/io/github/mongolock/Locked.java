package io.github.mongolock;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a CDI bean method (or every business method of a bean class) while holding a distributed
 * lock, through the {@code io.github.mongolock.cdi.LockedInterceptor} of mongolock's CDI extension.
 *
 * <pre>{@code
 * @Locked("invoice-run")
 * public void runInvoices() { ... }
 *
 * @Locked(value = "account-{0}", waitTime = "PT5S")   // name from the first argument
 * public Receipt charge(String accountId, long cents) { ... }
 *
 * @Locked(value = "nightly-report", onBusy = Locked.OnBusy.SKIP)
 * public void nightlyReport() { ... }
 *
 * @Locked({"account-{0}", "account-{1}"})              // both locks, all or nothing
 * public void transfer(String from, String to, long cents) { ... }
 *
 * @Locked(value = "catalog", access = Locked.Access.READ)  // many readers at once, across instances
 * public Price price(String item) { ... }
 * }</pre>
 *
 * <p>Every member is read and checked once, when the application deploys: a bad duration, an
 * unknown template reference, {@link OnBusy#SKIP} on a method that cannot return "nothing" or a lease
 * loss policy that does not fit the return type stops the deployment with a message naming the method.
 * Wait, lease and minimum hold times can be overridden per method or class through MicroProfile
 * Config (see docs/configuration.md, "CDI: per-method and per-class overrides").
 *
 * <p>The lock belongs to the call: nested {@code @Locked} calls with the same name made while the
 * method runs (on its thread) re-enter; any other call waits or is skipped, even a later one on the
 * same pooled thread. A method returning a {@link java.util.concurrent.CompletionStage} keeps the lock
 * until the stage completes; once it has returned the unfinished stage, its hold is detached from the
 * thread (see {@link LockSession#detach()}). A class-level binding never locks {@code toString()},
 * {@code hashCode()} or {@code equals(Object)}.
 */
@InterceptorBinding
@Inherited
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Locked {

    /**
     * The lock name template, or several: {@code @Locked("invoice-run")} takes one lock,
     * {@code @Locked({"account-{0}", "account-{1}"})} a multi-lock, all or nothing, as
     * {@link LockManager#acquireAll} does (the names made for a call are taken in their canonical order,
     * duplicates collapsed, within one wait time; see docs/multi-locks.md). Empty (the default):
     * {@code <declaring class>.<method>}, e.g. {@code com.acme.Billing.runInvoices}; an empty template among
     * several, no template ({@code {}}) or the same template twice is a deployment error. {@code {0}},
     * {@code {1}}, ... insert the argument at that position, {@code {accountId}} the argument of that parameter
     * (needs {@code -parameters}), each through {@link String#valueOf(Object)}; <code>{{</code> and
     * <code>}}</code> stand for literal braces.
     */
    @Nonbinding
    String[] value() default "";

    /**
     * How long to wait for a busy lock, ISO-8601 ({@code PT5S}; {@code PT0S}: one attempt). Empty:
     * {@code mongolock.wait-time} (default PT10S). Config overrides win over this value.
     */
    @Nonbinding
    String waitTime() default "";

    /**
     * How long the lease lasts without renewal, ISO-8601 (PT0.1S to P365D); renewed while the method
     * runs. Empty: {@code mongolock.lease-time} (default PT30S). Config overrides win over this value.
     */
    @Nonbinding
    String leaseTime() default "";

    /**
     * {@code 0} (the default): the method runs under a lock. {@code N} from 1: it runs holding one permit of the leased
     * semaphore named by {@link #value()}, of which at most N are held at once across every instance (see
     * {@link Permits}); N is part of the name's contract, the same everywhere. Not with {@link #holdAtLeast()}.
     * Config overrides ({@code .../Locked/permits}) win over this value.
     */
    @Nonbinding
    int permits() default 0;

    /**
     * {@link Access#EXCLUSIVE} (the default): the method runs under a lock (or a semaphore's permit, see
     * {@link #permits()}). {@link Access#READ} or {@link Access#WRITE}: it runs with that access to the leased
     * read-write lock named by {@link #value()} ({@link LockManager#readWriteLock}): many readers at once, or one
     * writer. A nested {@code @Locked} call with read access inside a read (or write inside a write) of the same name, on
     * the call's thread, re-enters; read inside a write is granted at once (a downgrade, a grant of its own); write
     * inside read fails with {@link LockUpgradeException}. Not with
     * {@link #permits()}, several names, {@link #holdAtLeast()} or a method returning a {@code CompletionStage}.
     * Config overrides ({@code .../Locked/access}) win over this value.
     */
    @Nonbinding
    Access access() default Access.EXCLUSIVE;

    /** What happens when the lock is still busy at the end of the wait time. */
    @Nonbinding
    OnBusy onBusy() default OnBusy.FAIL;

    /**
     * The least time the lock stays taken after its grant, ISO-8601 ({@code PT5M}; PT0S to P365D), even
     * when the method returns sooner: for scheduled jobs with {@link OnBusy#SKIP}, so that instances
     * whose timers fire a little later skip instead of running the job again. The document carries it:
     * the lock frees itself when the time is over, whatever happens to this process after the method
     * returned (see {@link io.github.mongolock.LockOptions#holdAtLeast}). Empty: none. Config overrides
     * ({@code .../Locked/hold-at-least}) win over this value.
     */
    @Nonbinding
    String holdAtLeast() default "";

    /**
     * What happens to the running method when the lease is lost: {@link OnLeaseLost#REPORT} (the
     * default), {@link OnLeaseLost#INTERRUPT} for a synchronous method (the thread running it is
     * interrupted; the flag is cleared again when the method has returned, before the thread goes back to
     * its pool) or {@link OnLeaseLost#CANCEL} for a method returning {@code CompletionStage} or
     * {@code CompletableFuture}. Any other combination is a deployment error.
     */
    @Nonbinding
    OnLeaseLost onLeaseLost() default OnLeaseLost.REPORT;

    /** Which kind of access a {@code @Locked} method runs with. */
    enum Access {
        /** A lock (or, with {@link Locked#permits()}, a semaphore's permit): one caller at a time. */
        EXCLUSIVE,
        /** Read access to the read-write lock of the name: shared with other readers, never with a writer. */
        READ,
        /** Write access to the read-write lock of the name: no other reader or writer meanwhile. */
        WRITE
    }

    /** What a {@code @Locked} method does when it cannot get the lock in time. */
    enum OnBusy {
        /** Throw {@link LockTimeoutException}; the method does not run. */
        FAIL,
        /**
         * Return without running: {@code null} from a {@code void} (or {@code Void}) method,
         * {@code Optional.empty()} from one returning {@code Optional}, and an already completed
         * {@code CompletableFuture} with a {@code null} result from one returning
         * {@code CompletionStage} or {@code CompletableFuture}. Any other return type is a deployment error.
         * A method that Jakarta Concurrency 3.1 runs on a schedule ({@code @Asynchronous(runAt = @Schedule(...))})
         * gets {@code null} whatever its return type: there any non-null value would end the schedule.
         */
        SKIP
    }
}
