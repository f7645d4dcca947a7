package io.github.mongolock.examples.quarkus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOptions;
import io.github.mongolock.LeaderElections;
import io.github.mongolock.Leadership;
import io.github.mongolock.LeadershipListener;
import io.github.mongolock.LeadershipOptions;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockSession;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.RevocationReason;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The example application in Quarkus against the stand-in, and "another instance" beside it: a plain
 * {@link MongoLockManager} in the test on the same database, as a second process would have.
 */
@QuarkusTest
@TestProfile(ExampleTestProfile.class)
@QuarkusTestResource(value = StandInMongo.class, restrictToAnnotatedClass = true)
class QuarkusExampleTest {

    private static final String DATABASE = "mongolock_quarkus_example";

    @TestHTTPResource("/")
    URI app;

    @ConfigProperty(name = "mongolock.uri")
    String uri;

    /** The application's own LockManager bean. */
    @Inject
    LockManager locks;

    private MongoLockManager other;
    private MongoClient client;

    @BeforeEach
    void anotherInstance() {
        other = MongoLockManager.builder().uri(uri).database(DATABASE).instanceId("other-instance").build();
        client = MongoClients.create(uri);
    }

    @AfterEach
    void closeIt() {
        other.close();
        client.close();
    }

    /**
     * 3 request threads into the application's {@code @Locked} deposit and 2 threads of the other instance doing
     * the same unsynchronised read, pause, write under its own lock of that name: no deposit is lost.
     */
    @Test
    void depositsOfBothInstancesNeverOverlap() throws Exception {
        MongoCollection<Document> counters = client.getDatabase(DATABASE).getCollection("counters");
        long before = balance(counters);
        long acquiredBefore = Http.number(Http.get(app, "api/locks/ledger").json(), "acquiredEvents");
        int rounds = 20;
        ExecutorService threads = Executors.newFixedThreadPool(5);
        try {
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                work.add(threads.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        assertEquals(200, Http.post(app, "api/ledger/deposit").status());
                    }
                }));
            }
            for (int t = 0; t < 2; t++) {
                work.add(threads.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        try (LockSession lock = other.acquire(Ledger.LOCK, Duration.ofSeconds(20))) {
                            long read = balance(counters);
                            Thread.sleep(2);
                            counters.replaceOne(Filters.eq("_id", Ledger.LOCK), new Document("_id", Ledger.LOCK).append("value", read + 1),
                                    new ReplaceOptions().upsert(true));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> done : work) {
                done.get(120, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertEquals(before + 5 * rounds, balance(counters), "a deposit was lost: two instances were inside the lock at once");
        Document state = Http.get(app, "api/locks/ledger").json();
        assertEquals(acquiredBefore + 3 * rounds, Http.number(state, "acquiredEvents"), "one LockEvent ACQUIRED per @Locked call: " + state);
        assertFalse(state.getBoolean("held"), "released after the last call: " + state);
    }

    private static long balance(MongoCollection<Document> counters) {
        return Optional.ofNullable(counters.find(Filters.eq("_id", Ledger.LOCK)).first()).map(doc -> doc.getLong("value")).orElse(0L);
    }

    /** {@code account-{accountId}}: the other instance's hold on account 42 fails a charge of 42 after 0.3 s, not one of 43. */
    @Test
    void aChargeWaitsForItsAccountOnly() {
        try (LockSession held = other.acquire("account-42")) {
            long start = System.nanoTime();
            Http.Answer busy = Http.post(app, "api/accounts/42/charge?cents=5");
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(409, busy.status(), busy.body());
            assertTrue(busy.body().contains("account-42") && busy.body().contains("other-instance"), busy.body());
            assertTrue(waitedMs >= 300, "waited its wait time first: " + waitedMs + " ms");
            assertEquals("charged 7 cents to account 43", Http.post(app, "api/accounts/43/charge?cents=7").json().getString("receipt"));
        }
        assertEquals("charged 5 cents to account 42", Http.post(app, "api/accounts/42/charge?cents=5").json().getString("receipt"));
    }

    /** {@code @Locked} on a REST resource method: it runs under its lock, and fails with 409 while the other instance holds it. */
    @Test
    void aLockedResourceMethod() {
        Document audit = Http.post(app, "api/ledger/audit").json();
        assertTrue(audit.getString("auditor").startsWith("quarkus-example:"), "ran under the application's own hold: " + audit.toJson());
        try (LockSession held = other.acquire("ledger-audit")) {
            Http.Answer busy = Http.post(app, "api/ledger/audit");
            assertEquals(409, busy.status(), busy.body());
            assertTrue(busy.body().contains("ledger-audit") && busy.body().contains(held.owner()), busy.body());
        }
    }

    /** The scheduled job ({@code SKIP}, every second here) does not run while the other instance holds its lock. */
    @Test
    void theScheduledJobSkipsWhileAnotherInstanceRunsIt() throws Exception {
        Await.until("the report runs", () -> runs() > 0);
        int runsBefore;
        try (LockSession held = other.acquire(NightlyReport.LOCK, Duration.ofSeconds(10))) {
            runsBefore = runs();
            Thread.sleep(2500); // two or three ticks
            assertEquals(runsBefore, runs(), "no run while the other instance holds the report's lock");
        }
        Await.until("the report runs again once the lock is free", () -> runs() > runsBefore);
    }

    private int runs() {
        return Http.get(app, "api/report").json().getInteger("runs");
    }

    /**
     * The application joins {@code example-leader} at startup ({@code mongolock.leadership.names}); the other instance
     * is a candidate that is not granted while the application leads, and is granted a higher term when it steps down.
     */
    @Test
    void oneLeaderAtATime() throws Exception {
        Await.until("the application leads", () -> Http.get(app, "api/leader").json().getBoolean("leader"));
        Document leading = Http.get(app, "api/leader").json();
        long appTerm = Http.number(leading, "term");
        assertEquals(appTerm, Http.number(leading, "lastGrantedTerm"), "LeadershipGranted fired with the term: " + leading);
        AtomicLong otherTerm = new AtomicLong();
        try (LeaderElections elections = new LeaderElections(other)) {
            Leadership candidate = elections.join(ClusterLeader.ELECTION,
                    LeadershipOptions.defaults().leaseTime(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(200)),
                    new LeadershipListener() {
                        @Override
                        public void granted(long term) {
                            otherTerm.set(term);
                        }

                        @Override
                        public void revoked(long term, RevocationReason reason) {
                            otherTerm.set(-term);
                        }
                    });
            Thread.sleep(1000); // five of its polls
            assertFalse(candidate.isLeader(), "not granted while the application leads");
            assertEquals(0, otherTerm.get());
            Document stepped = Http.post(app, "api/leader/step-down").json();
            assertFalse(stepped.getBoolean("leader"), stepped.toJson());
            assertEquals("term " + appTerm + ": STEPPED_DOWN", stepped.getString("lastRevocation"), "LeadershipRevoked fired");
            Await.until("the other instance is elected", candidate::isLeader);
            assertTrue(otherTerm.get() > appTerm, "a higher term: " + otherTerm.get() + " after " + appTerm);
            assertFalse(Http.get(app, "api/leader").json().getBoolean("leader"));
        }
        Await.until("the application leads again once the other instance left", () -> Http.get(app, "api/leader").json().getBoolean("leader"));
    }

    /** The readiness check ({@code quarkus-smallrye-health}) reports the store, and the LockManager bean injects. */
    @Test
    void readinessAndTheInjectedManager() {
        Http.Answer ready = Http.get(app, "q/health/ready");
        assertEquals(200, ready.status(), ready.body());
        Document check = ready.json().getList("checks", Document.class).stream()
                .filter(c -> "mongolock".equals(c.getString("name"))).findFirst().orElseThrow(() -> new AssertionError(ready.body()));
        assertEquals("UP", check.getString("status"), ready.body());
        try (LockSession held = locks.acquire("inspected")) {
            Document state = Http.get(app, "api/locks/inspected").json();
            assertTrue(state.getBoolean("held"), state.toJson());
            assertEquals(held.owner(), state.getString("owner"));
            assertTrue(held.owner().startsWith("quarkus-example:"), "mongolock.instance-id from application.properties: " + held.owner());
        }
    }
}
