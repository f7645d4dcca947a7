package io.github.mongolock.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.torture.SectionRecord.CloseOutcome;
import io.github.mongolock.torture.SectionRecord.WriteOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The semaphore's rules must find what they are meant to find ({@link PermitsChecker}): each is shown a hand-made
 * history that breaks it (permits above the limit, a token going back, a killed holder's permits never granted
 * again, a paused holder not told), and the histories a correct semaphore makes pass.
 */
class PermitsCheckerTest {

    private static final long NEVER = FaultEvent.UNRECOVERED;

    /** A hold of sem-0 (limit 2) asked for at its start, believed to its end, closed normally. */
    private static PermitSection hold(String process, int permits, long token, long start, long end) {
        return asked(process, permits, token, start, start, end);
    }

    private static PermitSection asked(String process, int permits, long token, long askedAt, long start, long end) {
        return new PermitSection(process, "sem-0", 2, permits, token, process + ":n:p" + token, askedAt, start, end, false,
                WriteOutcome.ACCEPTED, true, CloseOutcome.OK, false);
    }

    /** Told of its loss the three ways: isHeld false at its end, onLeaseLost, LockLostException. */
    private static PermitSection lost(String process, int permits, long token, long start, long end) {
        return new PermitSection(process, "sem-0", 2, permits, token, process + ":n:p" + token, start, start, end, false,
                WriteOutcome.SKIPPED, false, CloseOutcome.LOST, true);
    }

    private static PermitsChecker.Report check(List<PermitSection> holds, PermitFault... faults) {
        return PermitsChecker.check(holds, List.of(), List.of(faults), List.of(), Set.of());
    }

    @Test
    void holdsWithinTheLimitAreClean() {
        PermitsChecker.Report report = check(List.of(hold("p", 1, 1, 0, 10), hold("q", 1, 2, 5, 20),
                hold("r", 2, 3, 21, 30), hold("p", 1, 4, 31, 40), hold("q", 1, 5, 35, 50)));
        assertEquals(0, report.overLimit(), report.problems().toString());
        assertEquals(0, report.tokenOrderViolations(), report.problems().toString());
        assertEquals(Map.of("sem-0", 2), report.maxBelieved());
        assertEquals(3, report.atLimit(), "the starts at which 2 of 2 were held");
    }

    @Test
    void aHoldGrantedEarlierButStampedLateAfterItsLossIsNoViolation() {
        // As RW_PAUSE: p's permit was granted (token 1) before q and r's (tokens 2, 3), p was paused before it stamped
        // its start and lost the permit meanwhile, and "started" at 40 while q and r held the limit. The tokens order
        // the grants: p's came first, and q's and r's grants needed its permit back.
        PermitsChecker.Report report = check(List.of(hold("q", 1, 2, 10, 100), hold("r", 1, 3, 20, 100),
                lost("p", 1, 1, 40, 60)));
        assertEquals(0, report.overLimit(), report.problems().toString());
    }

    @Test
    void aHoldGrantedEarlierAndStampedLateStillCountsWhileItIsBelievedHeld() {
        // p's permit (token 1) was granted first and held to 100, its start stamped late at 40; r's grant (token 3) at 50
        // found q and p holding the limit: above it, although p's recorded start came after q's.
        PermitsChecker.Report report = check(List.of(hold("q", 1, 2, 10, 100), hold("p", 1, 1, 40, 100),
                hold("r", 1, 3, 50, 60)));
        assertEquals(1, report.overLimit(), report.problems().toString());
        assertTrue(report.problems().get(0).contains("token 3"), report.problems().toString());
    }

    @Test
    void aThirdPermitBelievedWhileTwoAreHeldIsAboveTheLimit() {
        PermitsChecker.Report report = check(List.of(hold("p", 1, 1, 0, 10), hold("q", 1, 2, 5, 20), hold("r", 1, 3, 8, 30)));
        assertEquals(1, report.overLimit());
        assertEquals(Map.of("sem-0", 3), report.maxBelieved());
        assertTrue(report.problems().get(0).startsWith("above the limit on sem-0: 3 permits of 2"), report.problems().toString());
    }

    @Test
    void twoPermitsAtOnceCountTwice() {
        assertEquals(1, check(List.of(hold("p", 2, 1, 0, 10), hold("q", 1, 2, 9, 20))).overLimit());
        assertEquals(1, check(List.of(hold("p", 1, 1, 0, 10), hold("q", 2, 2, 9, 20))).overLimit());
    }

    @Test
    void aHolderKilledInsideIsBelievedUntilItsDeath() {
        PermitSection killed = hold("p", 2, 1, 0, 0).endedByDeath(100);
        assertEquals(1, check(List.of(killed, hold("q", 1, 2, 50, 60))).overLimit());
        assertEquals(0, check(List.of(killed, hold("q", 1, 2, 101, 110))).overLimit());
    }

    @Test
    void aHolderToldOfItsLossIsNotBelievedPastItsStart() {
        // A paused holder runs on past the SIGSTOP, told: the fence, not the semaphore, keeps its late writes out.
        PermitsChecker.Report report = check(List.of(lost("p", 2, 1, 0, 3000), hold("q", 1, 2, 1600, 1700),
                hold("r", 1, 3, 1650, 1800)));
        assertEquals(0, report.overLimit(), report.problems().toString());
    }

    @Test
    void aTokenGrantedTwiceIsCaught() {
        assertEquals(1, check(List.of(hold("p", 1, 7, 0, 10), hold("q", 1, 7, 20, 30))).tokenOrderViolations());
    }

    @Test
    void aTokenGoingBackAfterAnEarlierGrantIsCaught() {
        // q asked at 15, after p's acquire had returned at 0 with token 9: q's grant came later, its token must be larger.
        PermitsChecker.Report report = check(List.of(hold("p", 1, 9, 0, 10), asked("q", 1, 8, 15, 16, 30)));
        assertEquals(1, report.tokenOrderViolations());
        assertTrue(report.problems().get(0).startsWith("token order on sem-0"), report.problems().toString());
    }

    @Test
    void holdsWhoseAcquiresRanSideBySideMayStartInEitherOrder() {
        // Both asked before either returned: 8 may be granted first and return last.
        assertEquals(0, check(List.of(asked("p", 1, 9, 0, 5, 10), asked("q", 1, 8, 1, 6, 30))).tokenOrderViolations());
    }

    @Test
    void aKilledHoldersPermitsNeverGrantedAgainAreUnrecovered() {
        // p held 1 of 2 and was killed at 100; afterwards nobody ever held more than 1, and the harness saw its entry stay.
        PermitSection victim = hold("p", 1, 1, 50, 0).endedByDeath(110);
        PermitFault kill = new PermitFault(FaultEvent.Kind.KILL, "p", "sem-0", victim.owner(), 1, 100, 101, 110, NEVER);
        PermitsChecker.Report report = check(List.of(victim, hold("q", 1, 2, 200, 300), hold("r", 1, 3, 400, 500)), kill);
        assertEquals(1, report.unrecovered());
        assertEquals(0, report.takenOver());
    }

    @Test
    void aRegrantIsSeenInTheHistoryWhenOthersHoldMoreThanTheVictimLeft() {
        // Limit 2, the victim held 1: two others believed at once (at 2,500) means its permit was taken back.
        PermitSection victim = hold("p", 1, 1, 50, 0).endedByDeath(110);
        PermitFault kill = new PermitFault(FaultEvent.Kind.KILL, "p", "sem-0", victim.owner(), 1, 100, 101, 110, NEVER);
        PermitsChecker.Report report = check(List.of(victim, asked("q", 1, 2, 500, 600, 3_000),
                asked("r", 1, 3, 700, 2_500, 2_600)), kill);
        assertEquals(0, report.unrecovered(), report.problems().toString());
        assertEquals(1, report.takenOver());
        assertEquals(2_400, report.maxRegrantNanos(), "from the SIGSTOP at 100");
        assertEquals(2_000, report.maxRegrantFromWatchNanos(), "from q's arrival at 500, the first waiter");
    }

    @Test
    void theFirstWaiterIsTheFirstCallToldBusyNotOneGivenAFreePermit() {
        // As the rehearsal's PERMITS_KILL: q is given the free permit at once (never told busy, never watched the
        // victim's session); r is told busy at 1,500 and waits; the victim's permit comes back at 3,300.
        PermitSection victim = hold("p", 1, 1, 50, 0).endedByDeath(110);
        PermitFault kill = new PermitFault(FaultEvent.Kind.KILL, "p", "sem-0", victim.owner(), 1, 100, 101, 110, 3_300);
        List<PermitSection> holds = List.of(victim, asked("q", 1, 2, 150, 160, 4_000), asked("r", 1, 3, 1_400, 3_350, 3_400));
        List<AcquireFailure> toldBusy = List.of(new AcquireFailure("r", "sem-0", AcquireFailure.BUSY, 1_400, 1_500));
        PermitsChecker.Report report = PermitsChecker.check(holds, List.of(), List.of(kill), List.of(), Set.of(),
                PermitsChecker.Waiters.ALL, PermitsChecker.Arrivals.toldBusy(toldBusy, Duration.ofMillis(2_300)));
        assertEquals(1_800, report.maxRegrantFromWatchNanos(), "from r told busy at 1,500");
        assertEquals(3_200, report.maxRegrantNanos(), "from the SIGSTOP at 100");
        assertEquals(3_150, check(holds, kill).maxRegrantFromWatchNanos(), "every call an arrival: from q's at 150");
        PermitsChecker.Report nobodyTold = PermitsChecker.check(holds, List.of(), List.of(kill), List.of(), Set.of(),
                PermitsChecker.Waiters.ALL, PermitsChecker.Arrivals.toldBusy(List.of(), Duration.ofMillis(2_300)));
        assertEquals(3_200, nobodyTold.maxRegrantFromWatchNanos(), "no call told busy: from the SIGSTOP");
    }

    @Test
    void aCallerToldBusyAndSoonServedByOtherPermitsIsNoWaiterButOneThatWaitedTheBoundIs() {
        // Limit 2, p (the victim) holds 1 from 50, killed at 100. q is told busy at 150 (r's permit was in use) and served
        // at 300 when r gave it back: it left nobody waiting. s is told busy at 1,300 and waits until the take-back at 3,200.
        PermitSection victim = hold("p", 1, 1, 50, 0).endedByDeath(110);
        PermitFault kill = new PermitFault(FaultEvent.Kind.KILL, "p", "sem-0", victim.owner(), 1, 100, 101, 110, 3_200);
        List<PermitSection> holds = List.of(victim, asked("r", 1, 2, 60, 60, 290), asked("q", 1, 3, 140, 300, 400),
                asked("s", 1, 4, 1_290, 3_250, 3_300));
        List<AcquireFailure> toldBusy = List.of(new AcquireFailure("q", "sem-0", AcquireFailure.BUSY, 140, 150),
                new AcquireFailure("s", "sem-0", AcquireFailure.BUSY, 1_290, 1_300));
        Duration bound = Duration.ofNanos(2_300);
        PermitsChecker.Report report = PermitsChecker.check(holds, List.of(), List.of(kill), List.of(), Set.of(),
                PermitsChecker.Waiters.ALL, PermitsChecker.Arrivals.toldBusy(toldBusy, bound));
        assertEquals(1_900, report.maxRegrantFromWatchNanos(), "from s told busy at 1,300: q was served at 300");
        // Had q waited until 2,700 (past the bound after being told busy) with nothing back, it counts: 3,050 > 2,300.
        List<PermitSection> qWaited = List.of(victim, asked("r", 1, 2, 60, 60, 290), asked("q", 1, 3, 140, 2_700, 2_800),
                asked("s", 1, 4, 1_290, 3_250, 3_300));
        PermitsChecker.Report strict = PermitsChecker.check(qWaited, List.of(), List.of(kill), List.of(), Set.of(),
                PermitsChecker.Waiters.ALL, PermitsChecker.Arrivals.toldBusy(toldBusy, bound));
        assertEquals(3_050, strict.maxRegrantFromWatchNanos(), "from q told busy at 150: it waited the whole bound");
    }

    @Test
    void theHarnessSightingCountsWhenEarlier() {
        PermitSection victim = hold("p", 1, 1, 50, 0).endedByDeath(110);
        PermitFault kill = new PermitFault(FaultEvent.Kind.KILL, "p", "sem-0", victim.owner(), 1, 100, 101, 110, 1_900);
        PermitsChecker.Report report = check(List.of(victim, asked("q", 1, 2, 500, 600, 3_000),
                asked("r", 1, 3, 700, 2_500, 2_600)), kill);
        assertEquals(1_400, report.maxRegrantFromWatchNanos());
    }

    @Test
    void aPausedHolderWhosePermitsWereTakenMustBeTold() {
        PermitSection told = lost("p", 1, 1, 50, 3_200);
        PermitSection untold = new PermitSection("p", "sem-0", 2, 1, 1, told.owner(), 50, 50, 3_200, false,
                WriteOutcome.ACCEPTED, true, CloseOutcome.OK, false);
        PermitSection closeUntold = new PermitSection("p", "sem-0", 2, 1, 1, told.owner(), 50, 50, 3_200, false,
                WriteOutcome.SKIPPED, false, CloseOutcome.OTHER, true);
        PermitFault pause = new PermitFault(FaultEvent.Kind.PAUSE, "p", "sem-0", told.owner(), 1, 100, 101, 3_100, 1_900);
        List<PermitSection> others = List.of(asked("q", 1, 2, 500, 1_950, 2_100), asked("r", 1, 3, 700, 2_000, 2_600));
        assertEquals(0, check(concat(told, others), pause).pauseViolations());
        assertEquals(1, check(concat(closeUntold, others), pause).pauseViolations(), "close() returned normally without its permits");
        // A release that reached MongoDB before the takeover (close OK) is the holder giving them back itself: no loss.
        assertEquals(0, check(concat(untold, others), pause).pauseViolations());
        PermitSection heldOn = new PermitSection("p", "sem-0", 2, 1, 1, told.owner(), 50, 50, 3_200, false,
                WriteOutcome.ACCEPTED, true, CloseOutcome.LOST, true);
        assertEquals(1, check(concat(heldOn, others), pause).pauseViolations(), "isHeld() true after the takeover");
    }

    @Test
    void aHolderCaughtInsideCloseToldAStoreFailureInsteadOfItsLossIsAViolation() {
        // Work over at 90, before the SIGSTOP at 100: frozen inside close(), whose release then failed.
        PermitSection inClose = new PermitSection("p", "sem-0", 2, 1, 1, "p:n:p1", 50, 50, 90, false,
                WriteOutcome.ACCEPTED, true, CloseOutcome.STORE, false);
        PermitFault pause = new PermitFault(FaultEvent.Kind.PAUSE, "p", "sem-0", inClose.owner(), 1, 100, 101, 3_100, 1_900);
        PermitsChecker.Report report = check(List.of(inClose, asked("q", 1, 2, 500, 1_950, 2_100),
                asked("r", 1, 3, 700, 2_000, 2_600)), pause);
        assertEquals(1, report.pauseViolations());
        assertEquals(1, report.storeFailedCloses());
    }

    @Test
    void aPauseNobodyTookOverIsNoViolation() {
        PermitSection victim = hold("p", 1, 1, 50, 3_200);
        PermitFault pause = new PermitFault(FaultEvent.Kind.PAUSE, "p", "sem-0", victim.owner(), 1, 100, 101, 3_100, NEVER);
        PermitsChecker.Report report = check(List.of(victim, hold("q", 1, 2, 500, 600)), pause);
        assertEquals(0, report.pauseViolations());
        assertEquals(0, report.unrecovered());
        assertEquals(0, report.takenOver());
    }

    @Test
    void theDocumentsAtTheEndMustAddUpAndHoldNothingOfAProcessThatStoppedByItself() {
        List<PermitsChecker.SemaphoreState> states = List.of(
                new PermitsChecker.SemaphoreState("sem-0", 2, 1, 1, List.of("w1.0:n:p4")),
                new PermitsChecker.SemaphoreState("sem-1", 3, 4, 4, List.of()),
                new PermitsChecker.SemaphoreState("sem-2", 4, 2, 1, List.of()));
        PermitsChecker.Report report = PermitsChecker.check(List.of(), List.of(), List.of(), states, Set.of("w0.0"));
        assertEquals(2, report.endStateViolations(), "used above the limit; used not the holders' sum");
        assertEquals(1, report.heldAtEnd());
        assertEquals(0, PermitsChecker.check(List.of(), List.of(), List.of(), states.subList(0, 1), Set.of("w1.0"))
                .heldAtEnd(), "a killed process's permits stay until a waiter takes them back");
    }

    private static List<PermitSection> concat(PermitSection first, List<PermitSection> rest) {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(first), rest.stream()).toList();
    }
}
