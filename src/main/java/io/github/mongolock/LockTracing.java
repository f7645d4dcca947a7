package io.github.mongolock;

/**
 * What a lock manager reports for tracing: one span per acquire or tryAcquire call, around its wait.
 * {@link io.github.mongolock.otel.OpenTelemetryLockTracing} makes them OpenTelemetry spans; {@link #NONE}
 * records nothing, and a manager built with it never calls it (the acquisition path then allocates
 * nothing for tracing).
 *
 * <p>A span carries the same few attributes as the metrics (the lock's <em>group</em>, never its name,
 * the outcome) plus how the caller waits ({@link WaitMode}). Every method is called on the caller's
 * thread, must be quick and must not throw; implementations are thread-safe, a {@link Span} is used by
 * one thread.
 */
public interface LockTracing {

    /** Traces nothing. */
    LockTracing NONE = (group, mode) -> Span.NONE;

    /** How the caller waits for a busy lock. */
    enum WaitMode {
        /** {@code acquire}: waits up to its wait time, then fails ({@code @Locked(onBusy = FAIL)}, the default). */
        WAIT,
        /** {@code tryAcquire}: gives up at the end of its wait time and goes on without the lock ({@code onBusy = SKIP}). */
        TRY
    }

    /** One acquisition's wait, from the call to its outcome. */
    interface Span {

        /** Records nothing. */
        Span NONE = new Span() {
        };

        /** Another caller of this manager handed its hold over to this waiter (no round trip to MongoDB). */
        default void handedOver() {
        }

        /** The call failed because a lease it would have re-entered was found lost. */
        default void leaseLost() {
        }

        /**
         * The call ended; called exactly once.
         *
         * @param fencingToken the granted hold's token when {@code outcome} is {@code ACQUIRED}, else -1
         * @param failure      the exception the call ends with, null when it returns
         */
        default void ended(LockMetrics.Outcome outcome, long fencingToken, Throwable failure) {
        }
    }

    /**
     * An acquire ({@link WaitMode#WAIT}) or tryAcquire ({@link WaitMode#TRY}) call starts waiting for a
     * lock of {@code group}.
     *
     * @return the span to report to; never null
     */
    Span acquireStarted(String group, WaitMode mode);

    /**
     * A semaphore's acquire or tryAcquire call for {@code permits} permits starts waiting ({@link Permits}); the span
     * ends as a lock's does. Records nothing unless overridden.
     *
     * @return the span to report to; never null
     */
    default Span permitsAcquireStarted(String group, WaitMode mode, int permits) {
        return Span.NONE;
    }

    /**
     * A read-write lock's read or write call ({@code access}) starts waiting ({@link ReadWriteLock}: {@code WAIT} for
     * {@code read}/{@code write}, {@code TRY} for {@code tryRead}/{@code tryWrite}); the span ends as a lock's does.
     * Records nothing unless overridden.
     *
     * @return the span to report to; never null
     */
    default Span readWriteAcquireStarted(String group, WaitMode mode, ReadWriteHold.Mode access) {
        return Span.NONE;
    }
}
