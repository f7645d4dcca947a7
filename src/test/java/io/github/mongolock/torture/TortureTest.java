package io.github.mongolock.torture;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;

/**
 * The multi-process torture test (see docs/torture.md). Runs the short configuration by default;
 * {@code -Dmongolock.torture=long} runs the long one, {@code -Dmongolock.torture.scenarios=KILL,PAUSE}
 * a subset. Prints the summary table, then asserts every scenario's figures.
 */
@ExtendWith(MongoBackend.class)
class TortureTest {

    @Test
    void locksHoldUnderFaults(TestMongo mongo) {
        TortureConfig config = TortureConfig.fromSystemProperty();
        List<ScenarioResult> results = TortureRunner.runAll(config, mongo, scenarios());
        List<Executable> checks = new ArrayList<>();
        for (ScenarioResult result : results) {
            checks.add(() -> assertScenario(config, result));
        }
        assertAll(checks);
    }

    private static List<Scenario> scenarios() {
        String chosen = System.getProperty("mongolock.torture.scenarios", "");
        return chosen.isBlank() ? List.of(Scenario.values())
                : Arrays.stream(chosen.split(",")).map(String::trim).map(Scenario::valueOf).toList();
    }

    private static void assertScenario(TortureConfig config, ScenarioResult result) {
        CheckReport r = result.report();
        String where = result.scenario().title() + " " + r.problems() + ": ";
        assertAll(where,
                // The election scenario has no critical sections: its leader answers are counted below.
                () -> assertTrue(r.sections() >= 50 || result.scenario() == Scenario.LEADER || result.scenario().permits(),
                        where + "too few critical sections to mean anything: " + r.sections()),
                () -> assertEquals(0, r.overlaps(), where + "overlaps"),
                () -> assertEquals(0, r.tokenOrderViolations(), where + "token-order violations"),
                () -> assertEquals(0, r.lostUpdates(), where + "lost updates"),
                () -> assertEquals(0, r.locksHeldAtEnd(), where + "locks held at the end"),
                () -> assertEquals(0, r.pauseViolations(), where + "pause violations"),
                () -> assertEquals(0, r.heldPastClose(), where + "locks held past their manager's close"),
                () -> assertEquals(0, r.unexpectedReentries(), where + "unexpected re-entries"),
                () -> assertEquals(0, r.lifecycle().missedReentries(), where + "missed re-entries"),
                () -> assertEquals(0, r.lifecycle().foreignExceptions(), where + "exceptions outside LockException"),
                () -> assertEquals(0, r.unrecovered(), where + "faults never recovered from"),
                () -> assertEquals(0, result.hungWorkers(), where + "workers that did not stop by themselves"));
        Duration bound = result.recoveryBound();
        if (result.scenario().readWrite()) {
            assertReadWrite(result);
            return;
        }
        if (result.scenario().permits()) {
            assertPermits(config, result);
            return;
        }
        switch (result.scenario()) {
            case SERVER_CLOCK -> assertAll(where,
                    // Each step holds a lease and the kills take their time: a slow start leaves room for 3 or 4 in the short run.
                    () -> assertTrue(result.clockSteps().size() >= 3, where + "too few clock steps: " + result.clockSteps()),
                    () -> assertTrue(result.clockSteps().stream().anyMatch(step -> step.clockOffsetMillis() > 0)
                            && result.clockSteps().stream().anyMatch(step -> step.clockOffsetMillis() < 0),
                            where + "the clock was not stepped both forward and back: " + result.clockSteps()),
                    () -> assertTrue(result.maxForwardStepMillis() <= Scenario.MAX_FORWARD_STEP.toMillis(),
                            where + "a forward step of " + result.maxForwardStepMillis() + " ms: the fast path assumes none"
                                    + " reaches " + Scenario.FAST_PATH_STEP.toSeconds() + " s, and the scenario keeps them within "
                                    + Scenario.MAX_FORWARD_STEP.toSeconds() + " s"),
                    // Only a holder that cannot renew may lose its lock, and nothing here stops one from renewing.
                    () -> assertEquals(0, r.takenFromLiveHolders(), where + "locks taken from a live holder"),
                    () -> assertTrue(result.killsWhileSteppedBack().size() >= 1,
                            where + "no holder was killed while the clock was stepped back"),
                    () -> assertTrue(r.maxRecoveryFromWatchNanos() <= bound.toNanos(), where + "recovery "
                            + Duration.ofNanos(r.maxRecoveryFromWatchNanos()).toMillis() + " ms (from the later of the SIGSTOP"
                            + " and the first waiter's arrival) exceeds " + bound.toMillis() + " ms"));
            case KILL, PAUSE -> assertAll(where,
                    () -> assertTrue(result.faultEvents() >= 1, where + "no fault was injected"),
                    () -> assertTrue(r.maxRecoveryFromWatchNanos() <= bound.toNanos(), where + "recovery "
                            + Duration.ofNanos(r.maxRecoveryFromWatchNanos()).toMillis() + " ms (from the later of the SIGSTOP"
                            + " and the first waiter's arrival) exceeds " + bound.toMillis() + " ms"),
                    () -> assertTrue(result.scenario() != Scenario.PAUSE || r.toldLost() >= 1,
                            where + "no paused holder learned of its loss"));
            // Every lock of every victim is one recovery, judged on its own (unrecovered above: none may be missing).
            case MANY_LOCKS -> assertAll(where,
                    () -> assertTrue(r.killVictims().victims() >= 1 && r.pauseVictims().victims() >= 1,
                            where + "not both a kill and a pause: " + result.events()),
                    () -> assertTrue(Stream.of(r.killVictims(), r.pauseVictims())
                            .allMatch(v -> v.victims() == 0 || v.minLocksHeld() >= config.locksPerWorker()),
                            where + "a victim held fewer than " + config.locksPerWorker() + " locks: " + r.killVictims()
                                    + " " + r.pauseVictims()),
                    () -> assertTrue(r.maxRecoveryFromWatchNanos() <= bound.toNanos(), where + "recovery "
                            + Duration.ofNanos(r.maxRecoveryFromWatchNanos()).toMillis() + " ms (from the later of the SIGSTOP"
                            + " and the first waiter's arrival at that lock) exceeds " + bound.toMillis() + " ms"),
                    // A grant whose answer the SIGSTOP kept from the victim until too late was never its to lose.
                    () -> assertTrue(r.toldLost() + r.pauseVictims().grantsNeverReceived() >= config.locksPerWorker(),
                            where + "the paused holders were not told of their losses: " + r.toldLost() + " told, "
                                    + r.pauseVictims().grantsNeverReceived() + " grants never received"));
            // Sharp, not vacuous: the windows met waiters reading sessions the snapshot lacked, and writes were rolled back.
            case STALE_READS -> {
                StaleReadRounds.Figures f = result.staleReads();
                assertAll(where,
                        () -> assertEquals(List.of(), f.layerProblems(), where + "problems inside the fault layer"),
                        () -> assertTrue(f.elections() >= 2, where + "too few elections: " + f),
                        () -> assertTrue(f.staleSessionReads() > 0, where + "no session read was stale: " + f),
                        () -> assertTrue(f.sessionsNotFound() > 0, where + "no stale session read found nothing: " + f),
                        () -> assertTrue(f.longHoldsMet() > 0, where + "no election met a long hold under a missing session: " + f),
                        () -> assertTrue(f.idleLocksRemoved() > 0, where + "the clean-up removed no lock document: " + f),
                        () -> assertTrue(f.lostReplies() > 0, where + "no answer was lost: " + f),
                        () -> assertTrue(f.rolledBackWrites() > 0, where + "no write was rolled back: " + f));
            }
            case OUTAGE -> assertAll(where,
                    () -> assertTrue(result.faultEvents() >= 1, where + "no outage was injected"),
                    () -> assertTrue(r.storeFailures() >= 1, where + "no acquire failed with LockStoreException"),
                    () -> assertTrue(r.maxStoreFailureNanos() <= storeFailureBound(config).toNanos(),
                            where + "an acquire took " + Duration.ofNanos(r.maxStoreFailureNanos()).toMillis()
                                    + " ms to fail, more than " + storeFailureBound(config).toMillis() + " ms"));
            case CUT -> assertAll(where,
                    () -> assertTrue(result.networkFaults() >= 10, where + "too few connections cut or stalled"),
                    () -> assertTrue(r.maxIdleGapNanos() <= idleGapBound(config).toNanos(), where + "a lock stayed unused "
                    + Duration.ofNanos(r.maxIdleGapNanos()).toMillis() + " ms, more than " + idleGapBound(config).toMillis() + " ms"));
            // A clock mishandled across the wrap would make every later lease of that worker look lost.
            case SKEW -> assertTrue(r.toldLost() <= 2 + r.sections() / 100,
                    where + "skewed clocks made leases look lost: " + r.toldLost());
            case MIXED -> assertTrue(result.faultEvents() >= 3, where + "fewer faults than planned: " + result.faultEvents());
            // Every worker closes its manager every 1-2 s, and once more when it stops.
            case SHUTDOWN -> assertTrue(r.lifecycle().managerCloses() >= 3 * config.workers(),
                    where + "too few managers closed: " + r.lifecycle().managerCloses());
            case HANDOVER -> assertAll(where,
                    () -> assertTrue(r.lifecycle().handovers() >= 50, where + "too few hand-overs: " + r.lifecycle().handovers()),
                    () -> assertTrue(r.lifecycle().crossThreadHandovers() >= 1, where + "no hold finished on another thread"),
                    () -> assertTrue(r.lifecycle().detachedRefused() >= 1,
                            where + "no acquire met a hold detached on its own thread: the re-entry rule was not exercised"));
            case LEADER -> assertAll(where,
                    () -> assertEquals(0, r.leader().doubleLeaders(), where + "two leaders answering yes at once"),
                    () -> assertEquals(0, r.leader().termOrderViolations(), where + "an older term answering after a newer"),
                    () -> assertTrue(r.leader().answers() >= 100, where + "too few leader answers: " + r.leader().answers()),
                    () -> assertTrue(r.leader().terms() >= 3, where + "too few terms: " + r.leader().terms()),
                    () -> assertTrue(result.events().stream().anyMatch(e -> e.kind() == FaultEvent.Kind.KILL)
                            && result.events().stream().anyMatch(e -> e.kind() == FaultEvent.Kind.PAUSE),
                            where + "no leader was both killed and paused: " + result.events()),
                    () -> assertTrue(result.networkFaults() >= 5, where + "too few connections cut or stalled"),
                    () -> assertTrue(r.leader().maxFailoverNanos() <= bound.toNanos(), where + "failover took "
                            + Duration.ofNanos(r.leader().maxFailoverNanos()).toMillis() + " ms from the SIGSTOP, more than "
                            + bound.toMillis() + " ms"));
        }
    }

    /**
     * The read-write lock's figures (see {@link ReadWriteChecker}): never a believed writer beside another believed
     * holder, tokens in grant order over both modes, the documents adding up at the end, and, where holders are killed
     * or paused, their access granted again within the bound; sharp, not vacuous: writes were taken, some started
     * alone, readers were believed side by side, and the faults met holders whose access others then took.
     */
    /** {@code -Dmongolock.torture.rw.assertStalls=false}: report the read-write scenarios' stalls without asserting 0. */
    static final String ASSERT_STALLS = "mongolock.torture.rw.assertStalls";

    private static void assertReadWrite(ScenarioResult result) {
        PermitsChecker.Report p = result.permits();
        String where = result.scenario().title() + " " + p.problems() + ": ";
        Duration bound = result.recoveryBound();
        assertAll(where,
                () -> assertTrue(p.sections() >= 50, where + "too few holds to mean anything: " + p.sections()),
                () -> assertTrue(p.twoPermitSections() >= 5, where + "too few write holds: " + p.twoPermitSections()),
                () -> assertTrue(p.atLimit() >= 1, where + "no write started alone"),
                () -> assertTrue(p.maxBelieved().values().stream().anyMatch(readers -> readers >= 2),
                        where + "readers never believed side by side: " + p.maxBelieved()),
                () -> assertEquals(0, p.overLimit(), where + "instants with a believed writer beside another believed holder"),
                () -> assertEquals(0, p.tokenOrderViolations(), where + "token-order violations"),
                () -> assertEquals(0, p.pauseViolations(), where + "paused holders not told of their loss"),
                () -> assertEquals(0, p.unrecovered(), where + "killed holders' access never granted again"),
                () -> assertEquals(0, p.endStateViolations(), where + "read-write documents that do not add up at the end"),
                () -> assertEquals(0, p.heldAtEnd(), where + "access held at the end by processes that stopped by themselves"),
                // Off by default: DeadReadWriteHolderTest's production finding (a dead manager holding read with its
                // own writer queued blocks the name) stalls RW_KILL in most runs. On once that is fixed.
                () -> assertTrue("false".equals(System.getProperty(ASSERT_STALLS)) || p.stalledAcquires() == 0, where
                        + "acquires timed out while nobody was granted the name: " + p.stalledAcquires() + ", longest "
                        + Duration.ofNanos(Math.max(p.maxStallNanos(), 0)).toMillis() + " ms"));
        switch (result.scenario()) {
            case RW_KILL, RW_PAUSE -> assertAll(where,
                    () -> assertTrue(p.faults() >= 1, where + "no holder was " + (result.scenario() == Scenario.RW_KILL
                            ? "killed" : "paused")),
                    () -> assertTrue(p.takenOver() >= 1, where + "no victim's access was granted again"),
                    () -> assertTrue(p.maxRegrantFromWatchNanos() <= bound.toNanos(), where + "regrant "
                            + Duration.ofNanos(p.maxRegrantFromWatchNanos()).toMillis() + " ms (from the later of the SIGSTOP"
                            + " and the first call of another process told busy) exceeds " + bound.toMillis() + " ms"),
                    () -> assertTrue(result.scenario() != Scenario.RW_PAUSE || p.toldLost() >= 1,
                            where + "no paused holder learned of its loss"));
            default -> assertEquals(0, p.faults(), where + "faults in the steady scenario");
        }
    }

    /**
     * The semaphore's figures (see {@link PermitsChecker}): never more than the limit believed held, tokens in grant
     * order, the documents adding up at the end, and, where holders are killed or paused, their permits granted again
     * within the bound; sharp, not vacuous: the holds reached their semaphore's limit, some took 2 permits at once,
     * and the faults met holders whose permits others then took.
     */
    private static void assertPermits(TortureConfig config, ScenarioResult result) {
        PermitsChecker.Report p = result.permits();
        String where = result.scenario().title() + " " + p.problems() + ": ";
        Duration bound = result.recoveryBound();
        assertAll(where,
                () -> assertTrue(p.sections() >= 50, where + "too few holds to mean anything: " + p.sections()),
                () -> assertTrue(p.twoPermitSections() >= 1, where + "no hold took 2 permits at once"),
                () -> assertTrue(p.atLimit() >= 1, where + "no semaphore ever had its limit's worth believed held: " + p.maxBelieved()),
                () -> assertEquals(0, p.overLimit(), where + "instants with more than the limit believed held"),
                () -> assertEquals(0, p.tokenOrderViolations(), where + "token-order violations"),
                () -> assertEquals(0, p.pauseViolations(), where + "paused holders not told of their loss"),
                () -> assertEquals(0, p.unrecovered(), where + "killed holders' permits never granted again"),
                () -> assertEquals(0, p.endStateViolations(), where + "semaphore documents that do not add up at the end"),
                () -> assertEquals(0, p.heldAtEnd(), where + "permits held at the end by processes that stopped by themselves"));
        switch (result.scenario()) {
            case PERMITS_KILL, PERMITS_PAUSE -> assertAll(where,
                    () -> assertTrue(p.faults() >= 1, where + "no holder was " + (result.scenario() == Scenario.PERMITS_KILL
                            ? "killed" : "paused")),
                    () -> assertTrue(p.takenOver() >= 1, where + "no victim's permits were granted again"),
                    () -> assertTrue(p.maxRegrantFromWatchNanos() <= bound.toNanos(), where + "regrant "
                            + Duration.ofNanos(p.maxRegrantFromWatchNanos()).toMillis() + " ms (from the later of the SIGSTOP"
                            + " and the first call of another process told busy) exceeds " + bound.toMillis() + " ms"),
                    () -> assertTrue(result.scenario() != Scenario.PERMITS_PAUSE || p.toldLost() >= 1,
                            where + "no paused holder learned of its loss"));
            default -> assertEquals(0, p.faults(), where + "faults in the steady scenario");
        }
    }

    /**
     * An acquire that begins while MongoDB is down may first wait (up to its wait time) behind a
     * holder of its own manager whose release is failing, then meets the outage in its last attempt:
     * one store timeout, or two when that attempt's outcome is unknown (a connection reset mid-call)
     * and its clean-up waits too. Plus scheduling slack. A lone acquire's bound, one store timeout,
     * is asserted by {@link UnreachableStoreAcquireTest}.
     */
    static Duration storeFailureBound(TortureConfig config) {
        return config.waitTime().plus(config.storeTimeout().multipliedBy(2)).plusMillis(500);
    }

    /**
     * A lock stays unused at most while its holder's lease runs out unconfirmed (a lease), a waiter's
     * request is stuck on a stalled connection (a store timeout) and a waiter's backoff ends.
     */
    static Duration idleGapBound(TortureConfig config) {
        return config.lease().plus(config.storeTimeout().multipliedBy(2)).plusSeconds(1);
    }
}
