package io.github.mongolock.core;

import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.LockTracing;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One acquire call of a semaphore or a read-write lock, reported: its outcome (acquired, skipped, timed out or
 * failed) and its duration to a metric, its outcome, token and failure to its span. The lock's own calls keep their
 * copy in {@link ReportedAcquisitions}, on the hot path, without the lambdas this takes.
 */
final class ReportedCall {

    /** Where the outcome and the call's duration go (the call's metric). */
    interface Ended {
        void ended(LockMetrics.Outcome outcome, long nanos);
    }

    private ReportedCall() {
    }

    /**
     * @param startNanos when the call began, on {@code clock}
     * @param granted    the grant's fencing token in what {@code call} returned; empty when it returned none (skipped)
     * @return what {@code call} returned
     */
    static <T> T report(MonotonicClock clock, long startNanos, LockTracing.Span span, Supplier<T> call,
                        Function<T, OptionalLong> granted, Ended metric) {
        LockMetrics.Outcome outcome = LockMetrics.Outcome.FAILED;
        long token = -1;
        Throwable failure = null;
        try {
            T result = call.get();
            OptionalLong grantedToken = granted.apply(result);
            outcome = grantedToken.isPresent() ? LockMetrics.Outcome.ACQUIRED : LockMetrics.Outcome.SKIPPED;
            token = grantedToken.orElse(-1);
            return result;
        } catch (LockTimeoutException timedOut) {
            outcome = LockMetrics.Outcome.TIMED_OUT;
            failure = timedOut;
            throw timedOut;
        } catch (RuntimeException | Error other) {
            failure = other;
            throw other;
        } finally {
            metric.ended(outcome, clock.nanoTime() - startNanos);
            span.ended(outcome, token, failure);
        }
    }
}
