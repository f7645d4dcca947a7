package io.github.mongolock.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.core.ReadWriteStore;
import io.github.mongolock.torture.SectionRecord.CloseOutcome;
import io.github.mongolock.torture.SectionRecord.WriteOutcome;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The read-write lock's rules must find what they are meant to find ({@link ReadWriteChecker}): each is shown a
 * hand-made history that breaks it (a writer beside a reader, beside a writer, a reader arriving beside a writer, a
 * write token going back, a token granted twice, a dead writer's or reader's access never granted again, a paused
 * holder not told, documents not adding up, acquires timing out while nobody was granted the name), and the histories a correct lock makes pass.
 */
class ReadWriteCheckerTest {

    private static final long NEVER = FaultEvent.UNRECOVERED;
    private static final int W = ReadWriteStore.WHOLE;

    private static PermitSection read(String process, long token, long start, long end) {
        return asked(process, 1, token, start, start, end);
    }

    private static PermitSection write(String process, long token, long start, long end) {
        return asked(process, W, token, start, start, end);
    }

    /** A hold of rw-0 (1 permit a read, WHOLE a write) asked for at {@code askedAt}, believed to its end, closed normally. */
    private static PermitSection asked(String process, int permits, long token, long askedAt, long start, long end) {
        return new PermitSection(process, "rw-0", W, permits, token, process + ":n:p" + token, askedAt, start, end, false,
                permits == W ? WriteOutcome.ACCEPTED : WriteOutcome.NONE, true, CloseOutcome.OK, false);
    }

    /** Told of its loss the three ways: isHeld false at its end, onLeaseLost, LockLostException. */
    private static PermitSection lost(String process, int permits, long token, long start, long end) {
        return new PermitSection(process, "rw-0", W, permits, token, process + ":n:p" + token, start, start, end, false,
                WriteOutcome.SKIPPED, false, CloseOutcome.LOST, true);
    }

    private static PermitsChecker.Report check(List<PermitSection> holds, PermitFault... faults) {
        return check(holds, List.of(), faults);
    }

    private static PermitsChecker.Report check(List<PermitSection> holds, List<AcquireFailure> failures, PermitFault... faults) {
        return ReadWriteChecker.check(holds, failures, List.of(faults), List.of(), Set.of());
    }

    @Test
    void readersSideBySideAndWritersAloneAreClean() {
        PermitsChecker.Report report = check(List.of(read("p", 1, 0, 10), read("q", 2, 5, 20), read("r", 3, 6, 25),
                write("p", 4, 26, 30), read("q", 5, 31, 40), write("r", 6, 41, 50)));
        assertEquals(0, report.overLimit(), report.problems().toString());
        assertEquals(0, report.tokenOrderViolations(), report.problems().toString());
        assertEquals(2, report.twoPermitSections(), "the write holds");
        assertEquals(2, report.atLimit(), "the writes that started alone");
        assertEquals(Map.of("rw-0", 3), report.maxBelieved(), "the most readers believed at once");
    }

    @Test
    void aWriterStartingBesideAReaderIsCaught() {
        PermitsChecker.Report report = check(List.of(read("p", 1, 0, 10), write("q", 2, 5, 20)));
        assertEquals(1, report.overLimit());
        assertTrue(report.problems().get(0).startsWith("writer beside another holder on rw-0"), report.problems().toString());
        assertTrue(report.problems().get(0).contains("q write token 2"), report.problems().toString());
    }

    @Test
    void aReaderStartingBesideAWriterIsCaught() {
        assertEquals(1, check(List.of(write("p", 1, 0, 10), read("q", 2, 5, 20))).overLimit());
    }

    @Test
    void twoWritersAtOnceAreCaughtThoughTheirPermitsOverflowAnInt() {
        // 2 x 2^30 is Integer.MIN_VALUE in int arithmetic: the checker sums in long.
        PermitsChecker.Report report = check(List.of(write("p", 1, 0, 10), write("q", 2, 5, 20)));
        assertEquals(1, report.overLimit(), report.problems().toString());
    }

    @Test
    void aKilledWriterIsBelievedUntilItsDeathAndAToldOneOnlyAtItsGrant() {
        PermitSection killed = write("p", 1, 0, 0).endedByDeath(100);
        assertEquals(1, check(List.of(killed, read("q", 2, 50, 60))).overLimit());
        assertEquals(0, check(List.of(killed, read("q", 2, 101, 110))).overLimit());
        assertEquals(0, check(List.of(lost("p", W, 1, 0, 3_000), read("q", 2, 1_600, 1_700), read("r", 3, 1_650, 1_800)))
                .overLimit(), "a writer told of its loss runs on; the fence keeps its late writes out");
    }

    @Test
    void aTokenGrantedTwiceOrGoingBackIsCaught() {
        assertEquals(1, check(List.of(read("p", 1, 0, 10), read("q", 1, 5, 20))).tokenOrderViolations());
        // q's write was asked for at 20, after p's read had its grant (token 5) at 0: its token 4 goes back.
        assertEquals(1, check(List.of(read("p", 5, 0, 10), asked("q", W, 4, 20, 30, 40))).tokenOrderViolations());
        // Side by side, either may return first.
        assertEquals(0, check(List.of(asked("p", 1, 5, 0, 10, 20), asked("q", 1, 4, 0, 11, 21))).tokenOrderViolations());
    }

    @Test
    void aKilledWritersAccessNeverGrantedAgainIsUnrecovered() {
        PermitSection victim = write("p", 1, 50, 0).endedByDeath(110);
        PermitFault kill = new PermitFault(FaultEvent.Kind.KILL, "p", "rw-0", victim.owner(), W, 100, 101, 110, NEVER);
        PermitsChecker.Report report = check(List.of(victim), kill);
        assertEquals(1, report.unrecovered());
        assertEquals(0, report.takenOver());
        // Any other hold after the SIGSTOP is a regrant of a dead writer's access.
        PermitsChecker.Report regranted = check(List.of(victim, asked("q", 1, 2, 500, 2_500, 2_600)), kill);
        assertEquals(0, regranted.unrecovered(), regranted.problems().toString());
        assertEquals(2_000, regranted.maxRegrantFromWatchNanos(), "from q's read asked at 500");
    }

    @Test
    void aKilledReaderIsTakenOverOnlyByAWriterCountedFromTheFirstWriter() {
        PermitSection victim = read("p", 1, 50, 0).endedByDeath(110);
        PermitFault kill = new PermitFault(FaultEvent.Kind.KILL, "p", "rw-0", victim.owner(), 1, 100, 101, 110, NEVER);
        // Readers passing the dead reader prove nothing: its entry may stand.
        PermitsChecker.Report readersOnly = check(List.of(victim, read("q", 2, 200, 300), read("r", 3, 250, 400)), kill);
        assertEquals(1, readersOnly.unrecovered());
        // A writer granted at 2,600 took it back; the watch counts from the first writer's ask (800), not q's read (200),
        // nor the timed-out read at 150 (readers pass a dead reader); a timed-out write counts.
        List<PermitSection> holds = List.of(victim, read("q", 2, 200, 300), asked("r", W, 3, 800, 2_600, 2_700));
        PermitsChecker.Report report = check(holds, List.of(new AcquireFailure("s", "rw-0", "TIMEOUT", 150, 1_150)), kill);
        assertEquals(0, report.unrecovered(), report.problems().toString());
        assertEquals(2_500, report.maxRegrantNanos());
        assertEquals(1_800, report.maxRegrantFromWatchNanos());
        PermitsChecker.Report earlierWriter = check(holds,
                List.of(new AcquireFailure("s", "rw-0", ReadWriteWorkload.WRITE_TIMEOUT, 600, 1_600)), kill);
        assertEquals(2_000, earlierWriter.maxRegrantFromWatchNanos());
    }

    @Test
    void aPausedHolderWhoseAccessWasTakenMustBeTold() {
        PermitSection told = lost("p", 1, 1, 50, 3_200);
        PermitFault pause = new PermitFault(FaultEvent.Kind.PAUSE, "p", "rw-0", told.owner(), 1, 100, 101, 3_100, 1_900);
        List<PermitSection> writer = List.of(asked("q", W, 2, 500, 1_950, 2_100));
        assertEquals(0, check(concat(told, writer), pause).pauseViolations());
        PermitSection heldOn = new PermitSection("p", "rw-0", W, 1, 1, told.owner(), 50, 50, 3_200, false,
                WriteOutcome.NONE, true, CloseOutcome.LOST, true);
        assertEquals(1, check(concat(heldOn, writer), pause).pauseViolations(), "isHeld() true after the takeover");
        PermitSection closedQuietly = new PermitSection("p", "rw-0", W, 1, 1, told.owner(), 50, 50, 3_200, false,
                WriteOutcome.NONE, false, CloseOutcome.OTHER, true);
        assertEquals(1, check(concat(closedQuietly, writer), pause).pauseViolations(), "close() without LockLostException");
        PermitsChecker.Report untaken = check(List.of(read("p", 1, 50, 3_200), read("q", 2, 500, 600)),
                new PermitFault(FaultEvent.Kind.PAUSE, "p", "rw-0", "p:n:p1", 1, 100, 101, 3_100, NEVER));
        assertEquals(0, untaken.pauseViolations(), "a pause nobody took over");
        assertEquals(0, untaken.takenOver());
    }

    @Test
    void theDocumentsAtTheEndMustAddUpAndHoldNothingOfAProcessThatStoppedByItself() {
        List<PermitsChecker.SemaphoreState> states = List.of(
                new PermitsChecker.SemaphoreState("rw-0", W, 2, 2, List.of("w1.0:n:p4", "w1.0:n:p5")),
                new PermitsChecker.SemaphoreState("rw-1", W, W, 0, List.of()));
        PermitsChecker.Report report = ReadWriteChecker.check(List.of(), List.of(), List.of(), states, Set.of("w0.0"));
        assertEquals(1, report.endStateViolations(), "used not the holders' sum");
        assertEquals(2, report.heldAtEnd());
    }

    @Test
    void acquiresTimingOutWhileNobodyIsGrantedTheNameAreStalls() {
        // p's write granted at 0-10; q's read and r's write time out (1,000-4,000 and 3,500-6,500) with no grant between:
        // one stall of 5,500 ns made of two acquires. s's read timed out while p was granted: no stall.
        List<AcquireFailure> failures = List.of(new AcquireFailure("q", "rw-0", "TIMEOUT", 1_000, 4_000),
                new AcquireFailure("r", "rw-0", ReadWriteWorkload.WRITE_TIMEOUT, 3_500, 6_500),
                new AcquireFailure("s", "rw-0", "TIMEOUT", -100, 3_000));
        PermitsChecker.Report report = check(List.of(write("p", 1, 0, 10)), failures);
        assertEquals(2, report.stalledAcquires(), report.problems().toString());
        assertEquals(5_500, report.maxStallNanos());
        assertTrue(report.problems().get(0).startsWith("stalled: rw-0"), report.problems().toString());
        // A victim's own acquires across its fault are not counted.
        PermitFault pause = new PermitFault(FaultEvent.Kind.PAUSE, "q", "rw-0", "q:n:p9", 1, 500, 501, 3_500, NEVER);
        assertEquals(1, check(List.of(write("p", 1, 0, 10)), failures, pause).stalledAcquires());
        assertEquals(0, check(List.of(write("p", 1, 0, 10), read("t", 2, 5_000, 5_100)),
                List.of(new AcquireFailure("r", "rw-0", ReadWriteWorkload.WRITE_TIMEOUT, 3_500, 6_500))).stalledAcquires());
    }

    private static List<PermitSection> concat(PermitSection first, List<PermitSection> rest) {
        return Stream.concat(Stream.of(first), rest.stream()).toList();
    }
}
