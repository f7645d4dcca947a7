package io.github.mongolock.examples.helidon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LeaderElections;
import io.github.mongolock.Leadership;
import io.github.mongolock.LeadershipListener;
import io.github.mongolock.LeadershipOptions;
import io.github.mongolock.LockEvent;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.RevocationReason;
import io.github.mongolock.cdi.Leaderships;
import io.helidon.microprofile.server.ServerCdiExtension;
import io.helidon.microprofile.testing.junit5.Configuration;
import io.helidon.microprofile.testing.junit5.HelidonTest;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The example application in Helidon MP (Weld SE, MicroProfile Config from META-INF/microprofile-config.properties,
 * MicroProfile Health) against one MongoDB, and a second node beside it: a plain {@link MongoLockManager} in the test
 * on the same database, as another instance of the application would have.
 */
@ExtendWith(TestDatabase.class) // before @HelidonTest: the configuration is in place first, and the database outlives the application
@HelidonTest
@Configuration(useExisting = true)
class HelidonExampleTest {

    private static final String DATABASE = "mongolock_helidon_example";

    /** The application's own LockManager bean (node 1). */
    @Inject
    LockManager locks;

    @Inject
    Ledger ledger;

    @Inject
    Accounts accounts;

    @Inject
    Reports reports;

    @Inject
    LockEvents events;

    @Inject
    Leaderships leaderships;

    @Inject
    ClusterLeader leader;

    @Inject
    BeanManager beans;

    /** Node 2: another instance's manager on the same database. */
    private MongoLockManager other;

    @BeforeEach
    void anotherNode() {
        other = MongoLockManager.builder().uri(TestDatabase.uri()).database(DATABASE).instanceId("other-node").build();
    }

    @AfterEach
    void closeIt() {
        other.close();
    }

    private int port() {
        return beans.getExtension(ServerCdiExtension.class).port();
    }

    /**
     * 3 threads into the application's {@code @Locked} deposit and 2 threads of the other node doing the same
     * unsynchronised read, pause, write under its own hold of that name: no deposit is lost and no two ever overlap.
     */
    @Test
    void depositsOfBothNodesNeverOverlap() throws Exception {
        long before = ledger.balance();
        long acquiredBefore = events.count(LockEvent.Kind.ACQUIRED, Ledger.LOCK);
        int rounds = 20;
        ExecutorService threads = Executors.newFixedThreadPool(5);
        try {
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                work.add(threads.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        ledger.deposit();
                    }
                    return null;
                }));
            }
            for (int t = 0; t < 2; t++) {
                work.add(threads.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        try (LockSession lock = other.acquire(Ledger.LOCK, Duration.ofSeconds(20))) {
                            ledger.depositHoldingTheLock();
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
        System.out.println("[helidon example] deposits: " + before + " -> " + ledger.balance() + ", most at once "
                + ledger.mostInsideAtOnce());
        assertEquals(before + 5 * rounds, ledger.balance(), "a deposit was lost: two nodes were inside the lock at once");
        assertEquals(1, ledger.mostInsideAtOnce(), "deposits overlapped");
        assertEquals(acquiredBefore + 3 * rounds, events.count(LockEvent.Kind.ACQUIRED, Ledger.LOCK),
                "one LockEvent ACQUIRED per @Locked call: the interceptor ran");
        assertTrue(locks.inspect(Ledger.LOCK).isEmpty(), "released after the last call");
    }

    /**
     * {@code account-{accountId}}: the other node's hold on account 42 fails a charge of 42, not one of 43; the wait is
     * the 0.3 s of microprofile-config.properties, not the annotation's 5 s.
     */
    @Test
    void aChargeWaitsForItsAccountOnly() {
        try (LockSession held = other.acquire("account-42")) {
            long start = System.nanoTime();
            LockTimeoutException busy = assertThrows(LockTimeoutException.class, () -> accounts.charge("42", 5));
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(busy.getMessage().contains("account-42") && busy.getMessage().contains("other-node"), busy.getMessage());
            assertTrue(waitedMs >= 300 && waitedMs < 3000, "waited the configured 0.3 s, not 5 s: " + waitedMs + " ms");
            assertEquals("charged 7 cents to account 43", accounts.charge("43", 7));
        }
        assertEquals("charged 5 cents to account 42", accounts.charge("42", 5));
    }

    /** {@code onBusy = SKIP}: the report does not run while the other node holds its lock, and runs once it is free. */
    @Test
    void theReportSkipsWhileAnotherNodeRunsIt() {
        reports.run();
        int runsBefore = reports.runs();
        assertTrue(runsBefore > 0, "ran while the lock was free");
        try (LockSession held = other.acquire(Reports.LOCK)) {
            long start = System.nanoTime();
            reports.run();
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(runsBefore, reports.runs(), "no run while the other node holds the report's lock");
            assertTrue(tookMs < 2000, "skipped at once, without waiting: " + tookMs + " ms");
        }
        reports.run();
        assertEquals(runsBefore + 1, reports.runs(), "runs again once the lock is free");
    }

    /** Over HTTP: a {@code @Locked} JAX-RS resource method runs under its lock, and 409 while the other node holds it. */
    @Test
    void aLockedResourceMethodOverHttp() {
        Http.Answer audit = Http.post(port(), "api/ledger/audit");
        assertEquals(200, audit.status(), audit.body());
        assertTrue(audit.body().startsWith("helidon-example:"), "ran under the application's own hold: " + audit.body());
        try (LockSession held = other.acquire("ledger-audit")) {
            Http.Answer busy = Http.post(port(), "api/ledger/audit");
            assertEquals(409, busy.status(), busy.body());
            assertTrue(busy.body().contains("ledger-audit") && busy.body().contains(held.owner()), busy.body());
            Http.Answer state = Http.get(port(), "api/locks/ledger-audit");
            assertTrue(state.body().startsWith("ledger-audit held by " + held.owner()), state.body());
        }
        Http.Answer charged = Http.post(port(), "api/accounts/7/charge?cents=3");
        assertEquals("charged 3 cents to account 7", charged.body());
    }

    /**
     * MicroProfile Health is on the class path, so mongolock's readiness check is registered: {@code /health/ready}
     * reports it UP. The injected manager's owners carry {@code mongolock.instance-id} from the properties file.
     */
    @Test
    void readinessAndTheInjectedManager() {
        Http.Answer ready = Http.get(port(), "health/ready");
        assertEquals(200, ready.status(), ready.body());
        String compact = ready.body().replaceAll("\\s", "");
        int check = compact.indexOf("\"name\":\"mongolock\"");
        assertTrue(check >= 0, "the mongolock check is listed: " + ready.body());
        String checkBody = compact.substring(check, compact.indexOf('}', check));
        assertTrue(checkBody.contains("\"status\":\"UP\""), ready.body());
        try (LockSession held = locks.acquire("inspected")) {
            assertTrue(held.owner().startsWith("helidon-example:"), "mongolock.instance-id from the properties file: " + held.owner());
            assertEquals(held.owner(), other.inspect("inspected").orElseThrow().owner(), "the other node sees the hold");
        }
    }

    /**
     * The application joins {@code example-leader} at startup ({@code mongolock.leadership.names}); the other node is a
     * candidate that is not granted while the application leads, and is granted a higher term when it steps down.
     */
    @Test
    void oneLeaderAtATime() throws Exception {
        Await.until("the application leads", () -> leaderships.isLeader(ClusterLeader.ELECTION));
        long appTerm = leaderships.term(ClusterLeader.ELECTION).orElse(0);
        assertEquals(appTerm, leader.lastGrantedTerm(), "LeadershipGranted fired with the term");
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
            leaderships.stepDown(ClusterLeader.ELECTION);
            assertFalse(leaderships.isLeader(ClusterLeader.ELECTION));
            Await.until("LeadershipRevoked fired", () -> leader.lastRevocation().equals("term " + appTerm + ": STEPPED_DOWN"));
            Await.until("the other node is elected", candidate::isLeader);
            assertTrue(otherTerm.get() > appTerm, "a higher term: " + otherTerm.get() + " after " + appTerm);
        }
        Await.until("the application leads again once the other node left", () -> leaderships.isLeader(ClusterLeader.ELECTION));
    }
}
