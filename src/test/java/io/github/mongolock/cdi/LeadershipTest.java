package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockManager;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.RevocationReason;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.StoredSessions;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.bson.Document;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The elections of {@code mongolock.leadership.*}: joined at startup, the {@link Leaderships} bean, the
 * {@code LeadershipGranted}/{@code LeadershipRevoked} events, leaving at shutdown, and every configuration
 * problem reported at deployment.
 */
@ExtendWith(MongoBackend.class)
class LeadershipTest {

    @BeforeEach
    void clearLog() {
        LeadershipEventsLog.ENTRIES.clear();
    }

    static void until(Duration within, BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() - deadline < 0, "timed out after " + within + " waiting until " + what);
            Thread.sleep(5);
        }
    }

    @Test
    void configuredElectionsAreJoinedAtStartupAndLeftAtShutdown(TestMongo mongo) throws Exception {
        String database = mongo.freshDatabase();
        Map<String, String> config = WeldNodes.settings(mongo, database,
                "mongolock.instance-id", "solo",
                "mongolock.leadership.names", "billing-leader, report-leader",
                "mongolock.leadership.lease-time", "PT4S",
                "mongolock.leadership.report-leader.lease-time", "PT3S",
                "mongolock.leadership.report-leader.poll-interval", "PT0.1S");
        MongoLockManager observer;
        try (WeldContainer node = WeldNodes.start("solo", config, LeadershipEventsLog.class)) {
            Leaderships leaderships = node.select(Leaderships.class).get();
            assertEquals(List.of("billing-leader", "report-leader"), leaderships.names());
            until(Duration.ofSeconds(10), () -> leaderships.isLeader("billing-leader") && leaderships.isLeader("report-leader"),
                    "leader of both (nobody else runs)");
            until(Duration.ofSeconds(5), () -> LeadershipEventsLog.granted().size() == 2, "both granted events");
            for (LeadershipEventsLog.Entry granted : LeadershipEventsLog.granted()) {
                assertEquals(leaderships.term(granted.election()).orElseThrow(), granted.term(), "the event's term: " + granted);
                assertTrue(granted.thread().startsWith("mongolock-leadership-"), granted.thread());
                assertTrue(granted.leaderThen(), "isLeader() already true when granted is observed");
            }
            LockManager locks = node.select(LockManager.class).get();
            assertTrue(locks.inspect("billing-leader").orElseThrow().owner().startsWith("solo:"));
            var documents = mongo.collection(database, "locks");
            assertEquals(3000L, StoredSessions.of(documents, "report-leader").get("leaseMs", Number.class).longValue(),
                    "the per-election lease (PT3S) over the global one (PT4S): the lease of the session it is held under");
            assertEquals(4000L, StoredSessions.of(documents, "billing-leader").get("leaseMs", Number.class).longValue(),
                    "the global lease");

            long term = leaderships.term("report-leader").orElseThrow();
            assertTrue(leaderships.stepDown("report-leader"));
            assertFalse(leaderships.isLeader("report-leader"));
            LeadershipEventsLog.Entry revoked = LeadershipEventsLog.ENTRIES.stream().filter(e -> !e.granted()).findFirst()
                    .orElseThrow();
            assertEquals(new LeadershipEventsLog.Entry("solo", "report-leader", false, term, RevocationReason.STEPPED_DOWN,
                    revoked.at(), Thread.currentThread().getName(), false), revoked, "told on the stepping-down thread");
            until(Duration.ofSeconds(5), () -> leaderships.isLeader("report-leader"), "elected again: nobody else runs");
            assertTrue(leaderships.term("report-leader").orElseThrow() > term, "a new term");

            LockConfigurationException unknown = assertThrows(LockConfigurationException.class,
                    () -> leaderships.isLeader("biling-leader"));
            assertTrue(unknown.getMessage().contains("\"biling-leader\" is not an election of this application: it joined"
                    + " [billing-leader, report-leader] (mongolock.leadership.names)"), unknown.getMessage());
            observer = MongoLockManager.builder().client(mongo.client()).database(database).build();
        }
        try {
            List<LeadershipEventsLog.Entry> left = LeadershipEventsLog.ENTRIES.stream()
                    .filter(e -> e.reason() == RevocationReason.LEFT).toList();
            assertEquals(2, left.size(), "each leadership revoked (LEFT) at shutdown: " + LeadershipEventsLog.ENTRIES);
            assertTrue(observer.inspect("billing-leader").isEmpty() && observer.inspect("report-leader").isEmpty(),
                    "released at shutdown");
        } finally {
            observer.close();
        }
    }

    @Test
    void withoutElectionsTheBeanIsThereAndEmpty(TestMongo mongo) {
        try (WeldContainer node = WeldNodes.start("none", WeldNodes.settings(mongo, mongo.freshDatabase()))) {
            Leaderships leaderships = node.select(Leaderships.class).get();
            assertEquals(List.of(), leaderships.names());
            assertThrows(LockConfigurationException.class, () -> leaderships.term("x"));
            assertTrue(Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(thread -> thread.getName().startsWith("mongolock-leadership-")), "no thread without elections");
        }
    }

    @Test
    void badLeadershipSettingsStopTheDeploymentNamingKeyAndValue(TestMongo mongo) {
        Map<String, String> config = WeldNodes.settings(mongo, "app",
                "mongolock.leadership.names", "a,,b,a,bad\u0000name",
                "mongolock.leadership.lease-time", "ten seconds",
                "mongolock.leadership.poll-interval", "PT0.001S",
                "mongolock.leadership.b.lease-time", "PT0.05S",
                "mongolock.leadership.a.lease-time", "PT1S",
                "mongolock.leadership.a.poll-interval", "PT2S",
                "mongolock.leadership.c.poll-interval", "PT1S");
        String report = DeploymentErrorTest.deploymentFailure(config);
        for (String message : List.of(
                "MONGOLOCK-CDI-018: mongolock.leadership.names = \"a,,b,a,bad\\u0000name\": it has an empty entry.",
                "MONGOLOCK-CDI-018: mongolock.leadership.names = \"a,,b,a,bad\\u0000name\": \"a\" is listed twice.",
                "contains a NUL character",
                "MONGOLOCK-CDI-001: mongolock.leadership.lease-time = \"ten seconds\" is not an ISO-8601 duration",
                "MONGOLOCK-CDI-002: mongolock.leadership.b.lease-time = \"PT0.05S\" is out of range",
                "MONGOLOCK-CDI-019: mongolock.leadership.poll-interval = \"PT0.001S\" is not valid: a candidate polls at most"
                        + " every PT0.01S",
                "MONGOLOCK-CDI-019: mongolock.leadership.a.poll-interval = \"PT2S\" is not valid: it is longer than the lease,"
                        + " mongolock.leadership.a.lease-time = PT1S",
                "MONGOLOCK-CDI-020: mongolock.leadership.c.poll-interval is set, but \"c\" is not an election of"
                        + " mongolock.leadership.names [a, b]")) {
            assertTrue(report.contains(message), "missing: " + message + "\nin:\n" + report);
        }
    }
}
