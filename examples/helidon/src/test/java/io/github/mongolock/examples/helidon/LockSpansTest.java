package io.github.mongolock.examples.helidon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockSession;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.MongoLockManager;
import io.helidon.microprofile.testing.junit5.AddBean;
import io.helidon.microprofile.testing.junit5.Configuration;
import io.helidon.microprofile.testing.junit5.HelidonTest;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.SpanData;
import jakarta.inject.Inject;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * mongolock's lock-wait spans in Helidon: with an {@code OpenTelemetry} bean in the application ({@link TestTelemetry}),
 * every {@code @Locked} call records one span on the tracer {@code io.github.mongolock}, a child of the caller's span,
 * from the call to the lock's outcome.
 */
@ExtendWith(TestDatabase.class)
@HelidonTest
@Configuration(useExisting = true)
@AddBean(TestTelemetry.class)
class LockSpansTest {

    private static final AttributeKey<String> GROUP = AttributeKey.stringKey("mongolock.lock.group");
    private static final AttributeKey<String> WAIT_MODE = AttributeKey.stringKey("mongolock.acquire.wait_mode");
    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("mongolock.acquire.outcome");
    private static final AttributeKey<Long> TOKEN = AttributeKey.longKey("mongolock.fencing_token");

    @Inject
    OpenTelemetry openTelemetry;

    @Inject
    Ledger ledger;

    @Inject
    Accounts accounts;

    @Inject
    Reports reports;

    private MongoLockManager other;

    @BeforeEach
    void anotherNode() {
        other = MongoLockManager.builder().uri(TestDatabase.uri()).database("mongolock_helidon_example").instanceId("other-node").build();
        TestTelemetry.SPANS.reset();
    }

    @AfterEach
    void closeIt() {
        other.close();
    }

    /** An acquired {@code @Locked} call: {@code mongolock acquire}, outcome acquired, its fencing token, under the caller's span. */
    @Test
    void anAcquiredCallIsAChildOfTheCallersSpan() {
        Span caller = openTelemetry.getTracer("test").spanBuilder("deposit request").startSpan();
        try (Scope ignored = caller.makeCurrent()) {
            ledger.deposit();
        } finally {
            caller.end();
        }
        SpanData lock = onlyLockSpan();
        System.out.println("[helidon example] span: " + lock.getName() + " " + lock.getAttributes() + ", parent "
                + lock.getParentSpanId() + ", scope " + lock.getInstrumentationScopeInfo().getName());
        assertEquals("mongolock acquire", lock.getName());
        assertEquals("io.github.mongolock", lock.getInstrumentationScopeInfo().getName());
        assertEquals(caller.getSpanContext().getSpanId(), lock.getParentSpanId(), "a child of the caller's span");
        assertEquals(caller.getSpanContext().getTraceId(), lock.getTraceId());
        assertEquals(Ledger.LOCK, lock.getAttributes().get(GROUP));
        assertEquals("wait", lock.getAttributes().get(WAIT_MODE));
        assertEquals("acquired", lock.getAttributes().get(OUTCOME));
        assertTrue(lock.getAttributes().get(TOKEN) > 0, "the fencing token: " + lock.getAttributes());
    }

    /** A wait that ends in a timeout: the span lasts the configured 0.3 s wait, outcome timed_out, grouped by template. */
    @Test
    void aTimedOutWaitIsASpanAsLongAsTheWait() {
        try (LockSession held = other.acquire("account-42")) {
            assertThrows(LockTimeoutException.class, () -> accounts.charge("42", 5));
        }
        SpanData lock = onlyLockSpan();
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(lock.getEndEpochNanos() - lock.getStartEpochNanos());
        System.out.println("[helidon example] span: " + lock.getName() + " " + lock.getAttributes() + ", " + waitedMs + " ms");
        assertEquals("mongolock acquire", lock.getName());
        assertEquals("account-{0}", lock.getAttributes().get(GROUP), "the template (by argument position), never the account");
        assertEquals("timed_out", lock.getAttributes().get(OUTCOME));
        assertNull(lock.getAttributes().get(TOKEN));
        assertTrue(waitedMs >= 300 && waitedMs < 3000, "the span covers the 0.3 s wait: " + waitedMs + " ms");
    }

    /** {@code onBusy = SKIP} while the other node holds the lock: {@code mongolock tryAcquire}, outcome skipped. */
    @Test
    void aSkippedCall() {
        try (LockSession held = other.acquire(Reports.LOCK)) {
            reports.run();
        }
        SpanData lock = onlyLockSpan();
        assertEquals("mongolock tryAcquire", lock.getName());
        assertEquals("try", lock.getAttributes().get(WAIT_MODE));
        assertEquals("skipped", lock.getAttributes().get(OUTCOME));
        assertEquals(Reports.LOCK, lock.getAttributes().get(GROUP));
    }

    /** The one span of the application's manager (the other node records none: it was built without tracing). */
    private static SpanData onlyLockSpan() {
        List<SpanData> spans = TestTelemetry.SPANS.getFinishedSpanItems().stream()
                .filter(span -> span.getInstrumentationScopeInfo().getName().equals("io.github.mongolock")).toList();
        assertEquals(1, spans.size(), "one mongolock span: " + spans);
        return spans.get(0);
    }
}
