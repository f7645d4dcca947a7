package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.RevocationReason;
import io.github.mongolock.testing.LeaderAnswers;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.SilentProxy;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Three CDI containers ("nodes", instance ids node-1..3) on one database join the election
 * {@value #ELECTION} through {@code mongolock.leadership.names}. Exactly one is granted. Its MongoDB then
 * goes silent (a proxy that stops answering: to the others, a node killed or cut off): it is told
 * ({@code LeadershipRevoked}, LEASE_LOST) when its lease ends, and only after that is another node
 * granted, with a higher term. That one is then shut down: it is told (LEFT) and releases, and the last
 * node is granted at its next poll. Throughout, a thread asks every node's {@link Leaderships} bean for
 * the term: no two terms ever answer at overlapping times. The failover times are printed.
 */
@ExtendWith(MongoBackend.class)
class ThreeNodeLeadershipTest {

    static final String ELECTION = "cluster-leader";
    /** Long enough that no renewal delayed by a loaded machine loses it; short enough for a quick failover. */
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration POLL = Duration.ofMillis(100);

    private final Map<String, WeldContainer> nodes = new LinkedHashMap<>();
    private final Map<String, SilentProxy> proxies = new LinkedHashMap<>();

    @AfterEach
    void stopAll() {
        nodes.values().forEach(node -> {
            if (node.isRunning()) {
                node.close();
            }
        });
        proxies.values().forEach(SilentProxy::close);
    }

    private WeldContainer start(TestMongo mongo, String database, String node) {
        SilentProxy proxy = SilentProxy.start(mongo.uri());
        proxies.put(node, proxy);
        Map<String, String> config = WeldNodes.settings(mongo, database,
                "mongolock.uri", proxy.uri(),
                "mongolock.instance-id", node,
                // a silenced node's calls give up within a second, so its shutdown does not wait long
                "mongolock.store-timeout", "PT1S",
                "mongolock.leadership.names", ELECTION,
                "mongolock.leadership.lease-time", LEASE.toString(),
                "mongolock.leadership.poll-interval", POLL.toString());
        WeldContainer container = WeldNodes.start(node, config, LeadershipEventsLog.class);
        container.select(LeadershipEventsLog.class).get(); // observers exist before the first event
        nodes.put(node, container);
        return container;
    }

    private static List<LeadershipEventsLog.Entry> grantedAfter(long nanos) {
        return LeadershipEventsLog.granted().stream().filter(entry -> entry.at() - nanos > 0).toList();
    }

    @Test
    void oneLeaderAtATimeAndAKilledOrStoppedLeaderIsReplacedWithAHigherTerm(TestMongo mongo) throws Exception {
        LeadershipEventsLog.ENTRIES.clear();
        String database = mongo.freshDatabase();
        for (String node : List.of("node-1", "node-2", "node-3")) {
            start(mongo, database, node);
        }
        Sampler sampler = new Sampler(nodes);
        sampler.start();
        try {
            LeadershipTest.until(Duration.ofSeconds(20), () -> !LeadershipEventsLog.granted().isEmpty(), "a first leader");
            Thread.sleep(LEASE.toMillis() * 2); // several polls and renewals: nobody else may be granted
            assertEquals(1, LeadershipEventsLog.granted().size(), "exactly one node granted: " + LeadershipEventsLog.ENTRIES);
            LeadershipEventsLog.Entry first = LeadershipEventsLog.granted().get(0);

            // The leader's MongoDB stops answering: its renewals hang, as for a node killed or cut off.
            long killedAt = System.nanoTime();
            proxies.get(first.node()).silence();
            LeadershipTest.until(Duration.ofSeconds(20), () -> !grantedAfter(killedAt).isEmpty(), "a successor after the kill");
            LeadershipEventsLog.Entry second = grantedAfter(killedAt).get(0);
            LeadershipEventsLog.Entry lost = LeadershipEventsLog.of(first.node()).stream().filter(e -> !e.granted())
                    .findFirst().orElseThrow(() -> new AssertionError("the killed leader was never told: "
                            + LeadershipEventsLog.ENTRIES));
            assertEquals(RevocationReason.LEASE_LOST, lost.reason());
            assertEquals(first.term(), lost.term());
            assertFalse(lost.leaderThen(), "isLeader() false when LeadershipRevoked is observed");
            assertTrue(lost.at() - second.at() < 0, "the old leader was told before the new one was granted: "
                    + LeadershipEventsLog.ENTRIES);
            assertTrue(second.term() > first.term(), "a higher term");
            assertTrue(!second.node().equals(first.node()));
            long killFailover = second.at() - killedAt;

            // The new leader's application stops: told first (LEFT), then the lock is released.
            String third = nodes.keySet().stream().filter(n -> !n.equals(first.node()) && !n.equals(second.node()))
                    .findFirst().orElseThrow();
            long stoppedAt = System.nanoTime();
            sampler.forget(second.node());
            nodes.get(second.node()).close();
            LeadershipTest.until(Duration.ofSeconds(20), () -> grantedAfter(stoppedAt).stream()
                    .anyMatch(e -> e.node().equals(third)), "the last node elected");
            LeadershipEventsLog.Entry left = LeadershipEventsLog.of(second.node()).stream().filter(e -> !e.granted())
                    .findFirst().orElseThrow();
            LeadershipEventsLog.Entry last = grantedAfter(stoppedAt).get(0);
            assertEquals(RevocationReason.LEFT, left.reason());
            assertEquals(second.term(), left.term());
            assertTrue(left.at() - last.at() < 0, "told before the next grant");
            assertTrue(last.term() > second.term());
            assertEquals(third, last.node(), "the silenced node cannot win");
            long stopFailover = last.at() - stoppedAt;
            Thread.sleep(LEASE.toMillis());
            sampler.stop();

            assertEquals(List.of(), sampler.overlaps(), "two nodes answered leader at overlapping times");
            assertTrue(sampler.yes() > 100, "the sampler saw leaders: " + sampler.yes());
            assertEquals(3, LeadershipEventsLog.granted().size(), "three terms in all: " + LeadershipEventsLog.ENTRIES);
            System.out.println("[mongolock tests] three CDI nodes, lease " + LEASE.toMillis() + " ms, poll " + POLL.toMillis()
                    + " ms: leader killed (MongoDB silenced) -> new leader granted after "
                    + TimeUnit.NANOSECONDS.toMillis(killFailover) + " ms (old leader told LEASE_LOST after "
                    + TimeUnit.NANOSECONDS.toMillis(lost.at() - killedAt) + " ms, "
                    + TimeUnit.NANOSECONDS.toMillis(second.at() - lost.at()) + " ms before the grant); leader shut down -> new"
                    + " leader granted after " + TimeUnit.NANOSECONDS.toMillis(stopFailover) + " ms; terms " + first.term()
                    + ", " + second.term() + ", " + last.term() + "; " + sampler.yes()
                    + " leader answers sampled on the 3 nodes, 0 overlapping");
        } finally {
            sampler.stop();
        }
    }

    /**
     * Asks every node's {@link Leaderships} bean for the term in a loop, noting the nanoTime before and
     * after each call that answered; a term was surely leader from its first answer's end to its last
     * answer's start, and those intervals must not overlap.
     */
    static final class Sampler {
        private final Map<String, Leaderships> nodes = new LinkedHashMap<>();
        /** Written by the sampler's thread only. */
        private final LeaderAnswers answers = new LeaderAnswers();
        private final Thread thread = new Thread(this::run, "leadership-sampler");
        private volatile boolean running = true;
        private volatile String forgotten = "";

        Sampler(Map<String, WeldContainer> containers) {
            containers.forEach((node, container) -> nodes.put(node, container.select(Leaderships.class).get()));
        }

        void start() {
            thread.start();
        }

        /** Stops asking {@code node}, about to be shut down (its beans then refuse calls). */
        void forget(String node) throws InterruptedException {
            forgotten = node;
            Thread.sleep(20); // the loop moves on past it
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join();
        }

        private void run() {
            while (running) {
                for (Map.Entry<String, Leaderships> node : nodes.entrySet()) {
                    if (node.getKey().equals(forgotten)) {
                        continue;
                    }
                    long before = System.nanoTime();
                    OptionalLong term;
                    try {
                        term = node.getValue().term(ELECTION);
                    } catch (RuntimeException stopping) {
                        continue; // the node is shutting down: its beans refuse calls
                    }
                    long after = System.nanoTime();
                    answers.record(term, before, after);
                }
                LockSupport.parkNanos(50_000);
            }
        }

        long yes() {
            return answers.yesAnswers();
        }

        List<String> overlaps() {
            return answers.overlaps();
        }
    }
}
