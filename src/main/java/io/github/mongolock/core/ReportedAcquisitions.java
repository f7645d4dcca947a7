package io.github.mongolock.core;

import io.github.mongolock.LockLostException;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.LockTracing;

/**
 * A coordinator's acquire and tryAcquire calls with the options applied, and each call's wait and outcome told
 * to the metrics and the tracing. With neither ({@link LockMetrics#NONE}, {@link LockTracing#NONE}), nothing is
 * measured and nothing allocated for them: the call goes straight to {@link LockCoordinator#obtain}. Owned by one
 * coordinator; stateless beyond its collaborators, so thread-safe.
 */
final class ReportedAcquisitions {

    private final LockCoordinator coordinator;
    private final MonotonicClock clock;
    private final LockMetrics metrics;
    private final LockTracing tracing;

    ReportedAcquisitions(LockCoordinator coordinator, MonotonicClock clock, LockMetrics metrics, LockTracing tracing) {
        this.coordinator = coordinator;
        this.clock = clock;
        this.metrics = metrics;
        this.tracing = tracing;
    }

    /** @return the session, or null when busy and {@code throwWhenBusy} is false */
    LockSession acquire(String name, LockOptions options, boolean throwWhenBusy) {
        String group = options == null ? LockMetrics.UNGROUPED : options.metricsGroup().orElse(LockMetrics.UNGROUPED);
        if (metrics == LockMetrics.NONE && tracing == LockTracing.NONE) {
            LockSession session = coordinator.obtain(name, options, throwWhenBusy, group, LockTracing.Span.NONE);
            return session == null ? null : Acquisitions.applyOptions(session, options);
        }
        long start = clock.nanoTime();
        LockTracing.Span span = tracing == LockTracing.NONE ? LockTracing.Span.NONE
                : tracing.acquireStarted(group, throwWhenBusy ? LockTracing.WaitMode.WAIT : LockTracing.WaitMode.TRY);
        LockMetrics.Outcome outcome = LockMetrics.Outcome.FAILED;
        long token = -1;
        Throwable failure = null;
        try {
            LockSession session = coordinator.obtain(name, options, throwWhenBusy, group, span);
            session = session == null ? null : Acquisitions.applyOptions(session, options);
            outcome = session != null ? LockMetrics.Outcome.ACQUIRED : LockMetrics.Outcome.SKIPPED;
            token = session != null ? session.fencingToken() : -1;
            return session;
        } catch (LockTimeoutException timedOut) {
            outcome = LockMetrics.Outcome.TIMED_OUT;
            failure = timedOut;
            throw timedOut;
        } catch (LockLostException lost) {
            span.leaseLost();
            failure = lost;
            throw lost;
        } catch (RuntimeException | Error other) {
            failure = other;
            throw other;
        } finally {
            metrics.acquireEnded(group, outcome, clock.nanoTime() - start);
            span.ended(outcome, token, failure);
        }
    }
}
