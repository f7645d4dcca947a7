package io.github.mongolock.otel;

import io.github.mongolock.LockMetrics;
import io.github.mongolock.ReadWriteHold;
import io.github.mongolock.LockTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import java.util.Locale;
import java.util.Objects;

/**
 * {@link LockTracing} as OpenTelemetry spans, on the tracer {@value OpenTelemetryLockMetrics#SCOPE}: one
 * {@link SpanKind#INTERNAL} span per acquire call, from the call to its outcome, a child of the span
 * current on the calling thread (none: a root span). The span is not made current: no application code
 * runs inside it.
 *
 * <pre>{@code
 * MongoLockManager locks = MongoLockManager.builder().uri(...).database("app")
 *         .tracing(OpenTelemetryLockTracing.of(openTelemetry))
 *         .build();
 * }</pre>
 *
 * <table>
 *   <caption>Spans</caption>
 *   <tr><th>what</th><th>value</th></tr>
 *   <tr><td>name</td><td>{@code mongolock acquire} ({@code acquire}, {@code @Locked} with {@code onBusy = FAIL}, the default),
 *       {@code mongolock tryAcquire} ({@code tryAcquire}, {@code onBusy = SKIP})</td></tr>
 *   <tr><td>attributes</td><td>{@code mongolock.lock.group}, {@code mongolock.acquire.wait_mode} (wait, try),
 *       {@code mongolock.acquire.outcome} (acquired, timed_out, skipped, failed); when acquired,
 *       {@code mongolock.fencing_token}</td></tr>
 *   <tr><td>events</td><td>{@code mongolock.handed_over} (another caller of this manager handed its hold over),
 *       {@code mongolock.lease_lost} (a lease the call would have re-entered was lost)</td></tr>
 *   <tr><td>status</td><td>ERROR with the exception recorded when the outcome is failed; otherwise unset</td></tr>
 * </table>
 *
 * <p>A semaphore's acquire call ({@code LockManager.permits}) is one span too, named {@code mongolock permits acquire}
 * or {@code mongolock permits tryAcquire}, with the same attributes, status and outcome plus {@code mongolock.permits}
 * (how many permits the call asks for). A read-write lock's call is {@code mongolock rw read}, {@code mongolock rw tryRead},
 * {@code mongolock rw write} or {@code mongolock rw tryWrite}, with the same attributes plus {@code mongolock.rw.mode}.
 *
 * <p>Thread-safe; one instance may serve several managers.
 */
public final class OpenTelemetryLockTracing implements LockTracing {

    static final String ACQUIRE = "mongolock acquire";
    static final String TRY_ACQUIRE = "mongolock tryAcquire";
    static final AttributeKey<String> WAIT_MODE = AttributeKey.stringKey("mongolock.acquire.wait_mode");
    static final AttributeKey<Long> FENCING_TOKEN = AttributeKey.longKey("mongolock.fencing_token");
    static final String PERMITS_ACQUIRE = "mongolock permits acquire";
    static final String PERMITS_TRY_ACQUIRE = "mongolock permits tryAcquire";
    /** A read-write lock's spans: {@code mongolock rw read}, {@code ... tryRead}, {@code ... write}, {@code ... tryWrite}. */
    static final String READ_WRITE = "mongolock rw ";
    static final AttributeKey<Long> PERMITS = AttributeKey.longKey("mongolock.permits");
    static final String HANDED_OVER = "mongolock.handed_over";
    static final String LEASE_LOST = "mongolock.lease_lost";

    private final Tracer tracer;

    private OpenTelemetryLockTracing(Tracer tracer) {
        this.tracer = tracer;
    }

    /** Spans on {@code openTelemetry}'s tracer provider. */
    public static OpenTelemetryLockTracing of(OpenTelemetry openTelemetry) {
        Objects.requireNonNull(openTelemetry, "openTelemetry");
        return new OpenTelemetryLockTracing(openTelemetry.getTracerProvider().tracerBuilder(OpenTelemetryLockMetrics.SCOPE)
                .build());
    }

    @Override
    public Span acquireStarted(String group, WaitMode mode) {
        // Context.current() is the default parent: the caller's span, if any.
        io.opentelemetry.api.trace.Span span = tracer.spanBuilder(mode == WaitMode.WAIT ? ACQUIRE : TRY_ACQUIRE).setSpanKind(SpanKind.INTERNAL)
                .setAttribute(OpenTelemetryLockMetrics.GROUP, group)
                .setAttribute(WAIT_MODE, mode.name().toLowerCase(Locale.ROOT))
                .startSpan();
        return new Waiting(span);
    }

    @Override
    public Span permitsAcquireStarted(String group, WaitMode mode, int permits) {
        io.opentelemetry.api.trace.Span span = tracer.spanBuilder(mode == WaitMode.WAIT ? PERMITS_ACQUIRE : PERMITS_TRY_ACQUIRE)
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(OpenTelemetryLockMetrics.GROUP, group)
                .setAttribute(WAIT_MODE, mode.name().toLowerCase(Locale.ROOT))
                .setAttribute(PERMITS, (long) permits)
                .startSpan();
        return new Waiting(span);
    }

    @Override
    public Span readWriteAcquireStarted(String group, WaitMode mode, ReadWriteHold.Mode access) {
        String call = (mode == WaitMode.WAIT ? "" : "try") + (access == ReadWriteHold.Mode.READ ? "Read" : "Write");
        io.opentelemetry.api.trace.Span span = tracer.spanBuilder(READ_WRITE + Character.toLowerCase(call.charAt(0))
                        + call.substring(1))
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(OpenTelemetryLockMetrics.GROUP, group)
                .setAttribute(WAIT_MODE, mode.name().toLowerCase(Locale.ROOT))
                .setAttribute(OpenTelemetryLockMetrics.MODE, access.name().toLowerCase(Locale.ROOT))
                .startSpan();
        return new Waiting(span);
    }

    /** One call's span; used by the calling thread only. ({@code Span} alone is mongolock's: OpenTelemetry's is spelled out.) */
    private record Waiting(io.opentelemetry.api.trace.Span span) implements Span {

        @Override
        public void handedOver() {
            span.addEvent(HANDED_OVER);
        }

        @Override
        public void leaseLost() {
            span.addEvent(LEASE_LOST);
        }

        @Override
        public void ended(LockMetrics.Outcome outcome, long fencingToken, Throwable failure) {
            span.setAttribute(OpenTelemetryLockMetrics.OUTCOME, outcome.name().toLowerCase(Locale.ROOT));
            if (outcome == LockMetrics.Outcome.ACQUIRED) {
                span.setAttribute(FENCING_TOKEN, fencingToken);
            }
            if (outcome == LockMetrics.Outcome.FAILED) {
                if (failure != null) {
                    span.recordException(failure);
                }
                span.setStatus(StatusCode.ERROR, failure == null ? "failed" : failure.getClass().getSimpleName());
            }
            span.end();
        }
    }

    @Override
    public String toString() {
        return "OpenTelemetryLockTracing[" + OpenTelemetryLockMetrics.SCOPE + "]";
    }
}
