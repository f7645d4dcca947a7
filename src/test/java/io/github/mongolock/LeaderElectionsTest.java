package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.SessionRenewal;
import io.github.mongolock.core.LockCoordinator;
import io.github.mongolock.core.MonotonicClock;
import io.github.mongolock.core.ReleaseFeed;
import io.github.mongolock.core.Sighting;
import io.github.mongolock.mongo.MongoLockStore;
import io.github.mongolock.testing.ForwardingLockStore;
import io.github.mongolock.testing.LeaderAnswers;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link LeaderElections} with three lock managers as three machines on one database: one leader,
 * failover when the leader is cut off from MongoDB (told at its lease's end, before the successor is
 * elected), step-down, leaving, the listener's order, one thread for all elections, and bad input.
 */
@ExtendWith(MongoBackend.class)
class LeaderElectionsTest {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration POLL = Duration.ofMillis(100);
    /** For the tests of a lost lease: a short lease, so the loss comes quickly. */
    private static final LeadershipOptions SHORT_LEASE = LeadershipOptions.defaults().leaseTime(LEASE).pollInterval(POLL);
    /** For the others: a lease no renewal delayed by a loaded machine can lose, and the same quick polls. */
    private static final LeadershipOptions OPTIONS = LeadershipOptions.defaults().leaseTime(Duration.ofSeconds(3))
            .pollInterval(POLL);
    private static final String ELECTION = "leader";

    private final TestMongo mongo;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private String database;

    LeaderElectionsTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void database() {
        database = mongo.freshDatabase();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    /** What a listener was told, in order, with when; fails the test on a call out of order. */
    static final class Recording implements LeadershipListener {
        record Call(boolean granted, long term, RevocationReason reason, long at, String thread, boolean leaderThen) {
        }

        final String label;
        final List<Call> calls = new CopyOnWriteArrayList<>();
        final List<String> disorder = new CopyOnWriteArrayList<>();
        private final AtomicBoolean inside = new AtomicBoolean();
        volatile Leadership leadership;
        volatile long slowGrantedMillis;

        Recording(String label) {
            this.label = label;
        }

        @Override
        public void granted(long term) {
            long at = System.nanoTime();
            enter();
            try {
                if (!calls.isEmpty() && calls.get(calls.size() - 1).granted()) {
                    disorder.add(label + ": granted " + term + " after granted " + calls.get(calls.size() - 1).term());
                }
                calls.add(new Call(true, term, null, at, Thread.currentThread().getName(), leadership != null && leadership.isLeader()));
                if (slowGrantedMillis > 0) {
                    sleep(slowGrantedMillis);
                }
            } finally {
                inside.set(false);
            }
        }

        @Override
        public void revoked(long term, RevocationReason reason) {
            long at = System.nanoTime();
            enter();
            try {
                Call last = calls.isEmpty() ? null : calls.get(calls.size() - 1);
                if (last == null || !last.granted() || last.term() != term) {
                    disorder.add(label + ": revoked " + term + " after " + last);
                }
                calls.add(new Call(false, term, reason, at, Thread.currentThread().getName(), leadership != null && leadership.isLeader()));
            } finally {
                inside.set(false);
            }
        }

        private void enter() {
            if (!inside.compareAndSet(false, true)) {
                disorder.add(label + ": two callbacks at once");
            }
        }

        List<Call> granted() {
            return calls.stream().filter(Call::granted).toList();
        }

        List<Call> revoked() {
            return calls.stream().filter(call -> !call.granted()).toList();
        }
    }

    /** A store that can be cut off: renewals and attempts fail as if MongoDB were unreachable from this machine. */
    static final class Partitionable extends ForwardingLockStore {
        volatile boolean cut;

        Partitionable(io.github.mongolock.core.LockStore real) {
            super(real);
        }

        private void check() {
            if (cut) {
                throw new LockStoreException("MongoDB unreachable (the test cut this machine off)", new RuntimeException(), false);
            }
        }

        @Override
        public AcquireAttempt tryAcquire(String name, String owner, String session) {
            check();
            return super.tryAcquire(name, owner, session);
        }

        @Override
        public AcquireAttempt takeOver(String name, String owner, String session, Sighting sighting) {
            check();
            return super.takeOver(name, owner, session, sighting);
        }

        @Override
        public SessionRenewal renewSession(String session) {
            check();
            return super.renewSession(session);
        }

        @Override
        public boolean release(String name, String owner, long version, int remainingHolds) {
            check();
            return super.release(name, owner, version, remainingHolds);
        }
    }

    private MongoLockManager manager(String instance) {
        MongoLockManager manager = MongoLockManager.builder().client(mongo.client()).database(database)
                .instanceId(instance).build();
        resources.add(manager);
        return manager;
    }

    private LeaderElections elections(LockManager locks) {
        LeaderElections elections = new LeaderElections(locks);
        resources.add(elections);
        return elections;
    }

    private Leadership join(LeaderElections elections, Recording listener) {
        return join(elections, listener, OPTIONS);
    }

    private Leadership join(LeaderElections elections, Recording listener, LeadershipOptions options) {
        Leadership leadership = elections.join(ELECTION, options, listener);
        listener.leadership = leadership;
        return leadership;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Polls every 5 ms until {@code condition} holds; fails naming {@code what} after {@code within}. */
    static void until(Duration within, BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() - deadline < 0, "timed out after " + within + " waiting until " + what);
            sleep(5);
        }
    }

    private static int leaders(List<Leadership> all) {
        return (int) all.stream().filter(Leadership::isLeader).count();
    }

    @Test
    void oneCandidateIsElectedAndTheOthersAreNot() {
        List<Recording> listeners = List.of(new Recording("a"), new Recording("b"), new Recording("c"));
        List<Leadership> all = new ArrayList<>();
        for (Recording listener : listeners) {
            all.add(join(elections(manager("node-" + listener.label)), listener));
        }
        until(Duration.ofSeconds(10), () -> leaders(all) == 1, "one leader");
        sleep(2_000); // the leader keeps it, renewed by its manager every lease/3
        assertEquals(1, leaders(all));
        Leadership leader = all.stream().filter(Leadership::isLeader).findFirst().orElseThrow();
        Recording told = listeners.get(all.indexOf(leader));
        assertEquals(1, told.granted().size(), "granted once: " + told.calls);
        assertEquals(leader.term().orElseThrow(), told.granted().get(0).term(), "the term is the one granted");
        assertTrue(told.granted().get(0).thread().startsWith("mongolock-leadership-"), told.granted().get(0).thread());
        for (Leadership other : all) {
            if (other != leader) {
                assertTrue(other.term().isEmpty());
                assertEquals(List.of(), listeners.get(all.indexOf(other)).calls);
            }
        }
        LockInfo lock = manager("observer").inspect(ELECTION).orElseThrow();
        assertEquals(leader.term().orElseThrow(), lock.fencingToken(), "the term is the election lock's token");
        listeners.forEach(listener -> assertEquals(List.of(), listener.disorder));
    }

    /**
     * The leader's machine loses MongoDB (renewals and attempts fail, as for a crash or a partition): it is
     * told at its lease's end, while no one else is leader, and a successor with a higher term is elected
     * after that. Meanwhile every candidate is asked isLeader() in a loop: no two terms' yes answers overlap.
     */
    @Test
    void aLeaderCutOffFromMongoDbIsToldAtItsLeaseEndBeforeASuccessorIsElected() throws Exception {
        Partitionable store = new Partitionable(new MongoLockStore(mongo.collection(database, "locks")));
        LockCoordinator cutOff = new LockCoordinator(store, "cut-off:" + System.nanoTime(), LEASE, Duration.ofSeconds(10),
                MonotonicClock.system(), List.of(), ReleaseFeed.NONE);
        resources.add(cutOff);
        Recording first = new Recording("cut-off");
        Leadership leader = join(elections(cutOff), first, SHORT_LEASE);
        until(Duration.ofSeconds(10), leader::isLeader, "the first candidate is leader");
        List<Recording> others = List.of(new Recording("b"), new Recording("c"));
        List<Leadership> all = new ArrayList<>(List.of(leader));
        for (Recording listener : others) {
            all.add(join(elections(manager("node-" + listener.label)), listener, SHORT_LEASE));
        }
        LeaderSampler sampler = new LeaderSampler(all);
        sampler.start();
        sleep(LEASE.toMillis());
        long term = leader.term().orElseThrow();
        long cutAt = System.nanoTime();
        store.cut = true;
        until(Duration.ofSeconds(10), () -> others.stream().anyMatch(o -> !o.granted().isEmpty()), "a successor");
        sleep(LEASE.toMillis());
        sampler.stop();

        Recording.Call revoked = first.revoked().get(0);
        Recording successor = others.stream().filter(o -> !o.granted().isEmpty()).findFirst().orElseThrow();
        Recording.Call granted = successor.granted().get(0);
        assertEquals(RevocationReason.LEASE_LOST, revoked.reason());
        assertEquals(term, revoked.term());
        assertFalse(revoked.leaderThen(), "isLeader() is false when revoked is told");
        // Told by the lock manager's loss notice, or by the leader's own poll if it noticed first (isLeader() is false from the lease's end).
        assertTrue(revoked.thread().startsWith("mongolock-notices-") || revoked.thread().startsWith("mongolock-leadership-"),
                revoked.thread());
        assertTrue(revoked.at() - granted.at() < 0, "revoked (" + revoked.at() + ") before the successor's granted ("
                + granted.at() + ")");
        assertTrue(granted.term() > term, "a higher term: " + granted.term() + " after " + term);
        long toldAfterCut = TimeUnit.NANOSECONDS.toMillis(revoked.at() - cutAt);
        assertTrue(toldAfterCut <= LEASE.toMillis() * 3 / 2, "told at the lease's end, not a successor's watch later: " + toldAfterCut + " ms");
        assertEquals(List.of(), sampler.overlaps(), "two leaders at once");
        assertTrue(sampler.yesAnswers() > 10, "the sampler saw leaders: " + sampler.yesAnswers());
        for (Recording listener : List.of(first, others.get(0), others.get(1))) {
            assertEquals(List.of(), listener.disorder);
        }
        System.out.println("[mongolock tests] leader cut off from MongoDB (lease " + LEASE.toMillis() + " ms, poll "
                + POLL.toMillis() + " ms): told " + toldAfterCut + " ms after the cut, successor elected "
                + TimeUnit.NANOSECONDS.toMillis(granted.at() - cutAt) + " ms after the cut ("
                + TimeUnit.NANOSECONDS.toMillis(granted.at() - revoked.at()) + " ms after the old leader was told); "
                + sampler.yesAnswers() + " isLeader() yes answers sampled, 0 overlapping");
    }

    @Test
    void stepDownTellsFirstThenReleasesAndAnotherCandidateWins() {
        Recording a = new Recording("a");
        Recording b = new Recording("b");
        Leadership first = join(elections(manager("node-a")), a);
        until(Duration.ofSeconds(10), () -> a.granted().size() == 1, "a is leader and told so");
        Leadership second = join(elections(manager("node-b")), b);
        // b's first attempts (a new manager's first round trips can take half a second here) are over before a
        // steps down and sits out two polls: b then wins at its next poll.
        sleep(LEASE.toMillis());
        long term = first.term().orElseThrow();

        long before = System.nanoTime();
        assertTrue(first.stepDown());
        assertFalse(first.isLeader());
        assertFalse(first.stepDown(), "not leader any more: nothing to give up (it sits out afresh)");
        assertEquals(List.of(new Recording.Call(false, term, RevocationReason.STEPPED_DOWN, a.revoked().get(0).at(),
                Thread.currentThread().getName(), false)), a.revoked(), "told on the calling thread before stepDown returned");
        // isLeader() turns true before the granted callback is delivered (on the election's callback thread): wait for both.
        until(Duration.ofSeconds(5), () -> second.isLeader() && !b.granted().isEmpty(), "b wins at its next poll, and is told");
        long wonAfter = TimeUnit.NANOSECONDS.toMillis(b.granted().get(0).at() - before);
        assertTrue(wonAfter < LEASE.toMillis(), "the lock was released, not left to expire: " + wonAfter + " ms");
        assertTrue(b.granted().get(0).term() > term);
        assertEquals(1, a.granted().size(), "the stepped-down candidate sat out while b took over");

        // b steps down too: a, still a candidate, wins again with a new term.
        assertTrue(second.stepDown());
        until(Duration.ofSeconds(5), first::isLeader, "a is elected again");
        assertTrue(first.term().orElseThrow() > b.granted().get(0).term());
        assertEquals(List.of(), a.disorder);
        assertEquals(List.of(), b.disorder);
    }

    @Test
    void closeLeavesTheElectionTellingFirstThenReleasing() {
        Recording a = new Recording("a");
        LeaderElections electionsA = elections(manager("node-a"));
        Leadership first = join(electionsA, a);
        until(Duration.ofSeconds(10), first::isLeader, "a is leader");
        long term = first.term().orElseThrow();
        MongoLockManager other = manager("node-b");
        first.close();
        first.close();
        assertFalse(first.isLeader());
        assertEquals(RevocationReason.LEFT, a.revoked().get(0).reason());
        assertEquals(term, a.revoked().get(0).term());
        assertTrue(other.inspect(ELECTION).isEmpty(), "released at once");
        assertFalse(first.stepDown());

        // Left: the name can be joined again by the same elections; closing them leaves every election.
        Recording again = new Recording("a2");
        Leadership rejoined = join(electionsA, again);
        until(Duration.ofSeconds(10), rejoined::isLeader, "rejoined and elected");
        electionsA.close();
        assertEquals(RevocationReason.LEFT, again.revoked().get(0).reason());
        assertTrue(other.inspect(ELECTION).isEmpty(), "released when the elections closed");
        LockException closed = assertThrows(LockException.class, () -> electionsA.join("another", OPTIONS, new Recording("x")));
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
        sleep(POLL.toMillis() * 3);
        assertEquals(1, a.granted().size(), "no attempt after leaving");
        assertEquals(List.of(), a.disorder);
    }

    /**
     * A step-down while granted is still running on the scheduler thread: revoked follows granted (on that
     * thread), and stepDown waits for it before releasing, so the revoked listener still sees the lock held.
     */
    @Test
    void aStepDownDuringASlowGrantedCallbackWaitsForTheRevokedBeforeReleasing() {
        MongoLockManager observer = manager("observer");
        Recording slow = new Recording("slow");
        slow.slowGrantedMillis = 300;
        List<Boolean> heldWhenRevoked = new CopyOnWriteArrayList<>();
        Leadership leadership = elections(manager("node-a")).join(ELECTION, OPTIONS, new LeadershipListener() {
            @Override
            public void granted(long term) {
                slow.granted(term);
            }

            @Override
            public void revoked(long term, RevocationReason reason) {
                heldWhenRevoked.add(observer.inspect(ELECTION).isPresent());
                slow.revoked(term, reason);
            }
        });
        slow.leadership = leadership;
        until(Duration.ofSeconds(10), () -> slow.granted().size() == 1, "leader, granted being delivered");
        assertTrue(slow.revoked().isEmpty());
        assertTrue(leadership.stepDown());
        assertEquals(1, slow.revoked().size(), "told before stepDown returned");
        assertTrue(slow.revoked().get(0).thread().startsWith("mongolock-leadership-"),
                "by the thread that was delivering granted: " + slow.revoked().get(0).thread());
        assertEquals(List.of(true), heldWhenRevoked, "told while the lock was still held");
        assertTrue(observer.inspect(ELECTION).isEmpty(), "released afterwards");
        assertEquals(List.of(), slow.disorder);
    }

    /** A loss that comes while granted is still running is told after it returns, never beside it. */
    @Test
    void aLossDuringASlowGrantedCallbackIsToldAfterIt() {
        Partitionable store = new Partitionable(new MongoLockStore(mongo.collection(database, "locks")));
        LockCoordinator locks = new LockCoordinator(store, "slow:" + System.nanoTime(), LEASE, Duration.ofSeconds(10),
                MonotonicClock.system(), List.of(), ReleaseFeed.NONE);
        resources.add(locks);
        Recording slow = new Recording("slow");
        slow.slowGrantedMillis = LEASE.toMillis() * 2;
        store.cut = false;
        Leadership leadership = elections(locks).join(ELECTION, SHORT_LEASE, new LeadershipListener() {
            @Override
            public void granted(long term) {
                store.cut = true; // renewals fail from now on: the lease ends during this callback
                slow.granted(term);
            }

            @Override
            public void revoked(long term, RevocationReason reason) {
                slow.revoked(term, reason);
            }
        });
        slow.leadership = leadership;
        until(Duration.ofSeconds(10), () -> slow.revoked().size() == 1, "the loss was told");
        assertEquals(List.of(), slow.disorder, "in order, one at a time");
        Recording.Call granted = slow.granted().get(0);
        assertTrue(slow.revoked().get(0).at() - granted.at() >= TimeUnit.MILLISECONDS.toNanos(slow.slowGrantedMillis),
                "after granted returned");
        assertEquals(RevocationReason.LEASE_LOST, slow.revoked().get(0).reason());
    }

    /** The lock manager closed under a leader: no loss action runs, the leader's next poll finds the hold gone. */
    @Test
    void aLeaderWhoseLockManagerClosesIsRevoked() {
        MongoLockManager locks = manager("node-a");
        Recording a = new Recording("a");
        Leadership leadership = join(elections(locks), a);
        until(Duration.ofSeconds(10), leadership::isLeader, "leader");
        locks.close();
        assertFalse(leadership.isLeader(), "isLeader() asks the hold at once");
        until(Duration.ofSeconds(5), () -> a.revoked().size() == 1, "revoked at the next poll");
        assertEquals(RevocationReason.LEASE_LOST, a.revoked().get(0).reason());
        sleep(POLL.toMillis() * 3);
        assertEquals(1, a.granted().size(), "a closed manager grants nothing; the candidate keeps polling");
    }

    @Test
    void allElectionsShareOneSchedulerThread() {
        LeaderElections elections = elections(manager("node-a"));
        List<Leadership> all = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            all.add(elections.join("election-" + i, OPTIONS, new Recording("e" + i)));
        }
        until(Duration.ofSeconds(20), () -> leaders(all) == 20, "leader of all 20");
        long threads = Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith("mongolock-leadership-")).count();
        assertEquals(1, threads, "one scheduler thread for 20 elections");
    }

    @Test
    void badInputIsRefusedNamingTheValue() {
        LeaderElections elections = elections(manager("node-a"));
        Recording listener = new Recording("x");
        assertMessage(LockConfigurationException.class, () -> elections.join(null, OPTIONS, listener), "null");
        assertMessage(LockConfigurationException.class, () -> elections.join("", OPTIONS, listener), "\"\"");
        assertMessage(LockConfigurationException.class, () -> elections.join("  ", OPTIONS, listener), "\"  \" is blank");
        assertMessage(LockConfigurationException.class, () -> elections.join("a\0b", OPTIONS, listener), "NUL");
        assertMessage(NullPointerException.class, () -> elections.join("ok", OPTIONS, null), "listener");
        assertMessage(NullPointerException.class, () -> elections.join("ok", null, listener), "options");
        assertMessage(LockConfigurationException.class, () -> LeadershipOptions.defaults().leaseTime(Duration.ofMillis(50)),
                "leaseTime = PT0.05S");
        assertMessage(LockConfigurationException.class, () -> LeadershipOptions.defaults().leaseTime(null), "leaseTime");
        assertMessage(LockConfigurationException.class, () -> LeadershipOptions.defaults().pollInterval(Duration.ofMillis(5)),
                "pollInterval = PT0.005S");
        assertMessage(LockConfigurationException.class, () -> LeadershipOptions.defaults().pollInterval(Duration.ofSeconds(-1)),
                "pollInterval = PT-1S");
        assertMessage(LockConfigurationException.class, () -> elections.join("ok",
                LeadershipOptions.defaults().leaseTime(Duration.ofSeconds(1)).pollInterval(Duration.ofSeconds(2)), listener),
                "pollInterval = PT2S is longer than leaseTime = PT1S");
        assertMessage(NullPointerException.class, () -> new LeaderElections(null), "locks");
        elections.join("twice", OPTIONS, listener);
        assertMessage(LockConfigurationException.class, () -> elections.join("twice", OPTIONS, listener),
                "\"twice\" is already joined");
        assertEquals(Duration.ofSeconds(2), LeadershipOptions.defaults().pollInterval(), "a fifth of the default lease");
        assertEquals(Duration.ofMillis(20), LeadershipOptions.defaults().leaseTime(Duration.ofMillis(100)).pollInterval());
    }

    private static void assertMessage(Class<? extends RuntimeException> type, Runnable call, String part) {
        RuntimeException thrown = assertThrows(type, call::run);
        assertTrue(String.valueOf(thrown.getMessage()).contains(part), "expected \"" + part + "\" in: " + thrown.getMessage());
    }

    /**
     * Asks every candidate isLeader() in a loop on a thread of its own, recording each yes with the
     * nanoTime before and after the call; then the torture's rule: a term was surely leader from its
     * first yes's end to its last yes's start, and no two terms' such intervals may overlap.
     */
    static final class LeaderSampler {
        private final List<Leadership> candidates;
        /** Written by the sampler's thread only. */
        private final LeaderAnswers answers = new LeaderAnswers();
        private final Thread thread;
        private volatile boolean running = true;

        LeaderSampler(List<Leadership> candidates) {
            this.candidates = List.copyOf(candidates);
            this.thread = new Thread(this::sample, "leader-sampler");
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join();
        }

        private void sample() {
            while (running) {
                for (Leadership candidate : candidates) {
                    long before = System.nanoTime();
                    OptionalLong term = candidate.term();
                    long after = System.nanoTime();
                    answers.record(term, before, after);
                }
                LockSupport.parkNanos(20_000);
            }
        }

        long yesAnswers() {
            return answers.yesAnswers();
        }

        List<String> overlaps() {
            return answers.overlaps();
        }
    }
}
