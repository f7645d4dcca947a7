package io.github.mongolock.examples.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockSession;
import io.github.mongolock.MongoLockManager;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * mongolock's lock-wait spans in Quarkus's own OpenTelemetry SDK (quarkus-opentelemetry): the {@code @Locked}
 * interceptor's acquire calls, exported by the SDK that Quarkus configured to the {@link InMemorySpans} exporter
 * bean, beside the HTTP server spans Quarkus makes itself. The other instance is a plain manager with no tracing.
 */
@QuarkusTest
@TestProfile(ExampleTestProfile.class)
@QuarkusTestResource(value = StandInMongo.class, restrictToAnnotatedClass = true)
class QuarkusTracingTest {

    private static final String DATABASE = "mongolock_quarkus_example";
    private static final AttributeKey<String> GROUP = AttributeKey.stringKey("mongolock.lock.group");
    private static final AttributeKey<String> WAIT_MODE = AttributeKey.stringKey("mongolock.acquire.wait_mode");
    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("mongolock.acquire.outcome");
    private static final AttributeKey<Long> FENCING_TOKEN = AttributeKey.longKey("mongolock.fencing_token");
    private static final String SCOPE = "io.github.mongolock";
    /** {@code @Locked("account-{accountId}")}'s group: the template with its arguments by position, never an account's lock. */
    private static final String ACCOUNT_GROUP = "account-{0}";

    @TestHTTPResource("/")
    URI app;

    @ConfigProperty(name = "mongolock.uri")
    String uri;

    /** What Quarkus's SDK exported. */
    @Inject
    InMemorySpanExporter spans;

    private MongoLockManager other;

    @BeforeEach
    void anotherInstance() {
        other = MongoLockManager.builder().uri(uri).database(DATABASE).instanceId("other-instance").build();
        spans.reset();
    }

    @AfterEach
    void closeIt() {
        other.close();
    }

    /**
     * A deposit ({@code @Locked("ledger")} on a bean the resource calls): one {@code mongolock acquire} span, a child of
     * the request's server span, granted with the fencing token; the next deposit's token is higher.
     */
    @Test
    void aGrantedWaitIsAChildOfTheRequestsSpan() throws Exception {
        assertEquals(200, Http.post(app, "api/ledger/deposit").status());
        SpanData first = lockSpan("mongolock acquire", Ledger.LOCK, "acquired");
        assertEquals(SCOPE, first.getInstrumentationScopeInfo().getName());
        assertEquals(SpanKind.INTERNAL, first.getKind());
        assertEquals("wait", first.getAttributes().get(WAIT_MODE));
        Long token = first.getAttributes().get(FENCING_TOKEN);
        assertNotNull(token, "a granted wait carries its fencing token: " + first);
        assertTrue(token > 0, first.toString());
        SpanData server = parentOf(first);
        assertEquals(SpanKind.SERVER, server.getKind(), server.toString());
        assertTrue(server.getName().contains("/api/ledger/deposit"), "the request's span: " + server.getName());

        spans.reset();
        assertEquals(200, Http.post(app, "api/ledger/deposit").status());
        SpanData second = lockSpan("mongolock acquire", Ledger.LOCK, "acquired");
        assertTrue(second.getAttributes().get(FENCING_TOKEN) > token, "each grant a higher token: " + second);
        assertFalse(second.getTraceId().equals(first.getTraceId()), "a trace per request");
    }

    /**
     * {@code @Locked} on the resource method itself ({@code ledger-audit}): the interceptor runs inside the request,
     * so the wait is a child of its server span too.
     */
    @Test
    void aLockedResourceMethodsWaitIsAChildOfItsRequest() throws Exception {
        assertEquals(200, Http.post(app, "api/ledger/audit").status());
        SpanData audit = lockSpan("mongolock acquire", "ledger-audit", "acquired");
        assertNotNull(audit.getAttributes().get(FENCING_TOKEN), audit.toString());
        SpanData server = parentOf(audit);
        assertEquals(SpanKind.SERVER, server.getKind(), server.toString());
        assertTrue(server.getName().contains("/api/ledger/audit"), server.getName());
    }

    /**
     * The other instance holds {@code account-42}: the charge waits its 0.3 s and fails (409), and the span says
     * {@code timed_out}, under the template's group ({@code account-{0}}), not the account's lock name, and with no token.
     */
    @Test
    void aTimedOutWaitGivesItsOutcome() throws Exception {
        try (LockSession held = other.acquire("account-42", Duration.ofSeconds(10))) {
            assertEquals(409, Http.post(app, "api/accounts/42/charge?cents=5").status());
        }
        SpanData busy = lockSpan("mongolock acquire", ACCOUNT_GROUP, "timed_out");
        assertEquals("wait", busy.getAttributes().get(WAIT_MODE));
        assertNull(busy.getAttributes().get(FENCING_TOKEN), busy.toString());
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(busy.getEndEpochNanos() - busy.getStartEpochNanos());
        assertTrue(waitedMs >= 300, "the span lasts the wait time: " + waitedMs + " ms");
        SpanData server = parentOf(busy);
        assertEquals(SpanKind.SERVER, server.getKind(), server.toString());
        assertTrue(server.getName().contains("/api/accounts/"), server.getName());

        assertEquals(200, Http.post(app, "api/accounts/42/charge?cents=5").status());
        assertNotNull(lockSpan("mongolock acquire", ACCOUNT_GROUP, "acquired").getAttributes().get(FENCING_TOKEN));
    }

    /**
     * The scheduled report ({@code onBusy = SKIP}) while the other instance holds its lock: {@code mongolock tryAcquire}
     * spans with the outcome {@code skipped}; once the lock is free, {@code acquired} with a token.
     */
    @Test
    void aSkippedRunGivesItsOutcome() throws Exception {
        try (LockSession held = other.acquire(NightlyReport.LOCK, Duration.ofSeconds(10))) {
            spans.reset();
            SpanData skipped = lockSpan("mongolock tryAcquire", NightlyReport.LOCK, "skipped");
            assertEquals("try", skipped.getAttributes().get(WAIT_MODE));
            assertNull(skipped.getAttributes().get(FENCING_TOKEN), skipped.toString());
        }
        SpanData ran = lockSpan("mongolock tryAcquire", NightlyReport.LOCK, "acquired");
        assertNotNull(ran.getAttributes().get(FENCING_TOKEN), ran.toString());
    }

    /** Waits (15 s at most) for a finished span of mongolock's with this name, group and outcome. */
    private SpanData lockSpan(String name, String group, String outcome) throws InterruptedException {
        return await("a span " + name + " of " + group + ", " + outcome, span -> span.getName().equals(name)
                && group.equals(span.getAttributes().get(GROUP)) && outcome.equals(span.getAttributes().get(OUTCOME)));
    }

    /** Waits (15 s at most) for the span's parent to be exported too (a server span ends after its response). */
    private SpanData parentOf(SpanData child) throws InterruptedException {
        assertTrue(child.getParentSpanContext().isValid(), "has a parent: " + child);
        SpanData parent = await("the parent of " + child.getName(), span -> span.getSpanId().equals(child.getParentSpanId()));
        assertEquals(child.getTraceId(), parent.getTraceId());
        return parent;
    }

    private SpanData await(String what, Predicate<SpanData> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            Optional<SpanData> found = spans.getFinishedSpanItems().stream().filter(wanted).findFirst();
            if (found.isPresent()) {
                return found.get();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 15 s: " + what + "; exported: " + names());
            }
            Thread.sleep(50);
        }
    }

    private List<String> names() {
        return spans.getFinishedSpanItems().stream().map(span -> span.getName() + " " + span.getAttributes()).toList();
    }
}
