package io.github.mongolock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The checker's rules for leased semaphores (issue 32; spec/PERMITS-DESIGN.md, "What is promised"); a pure function
 * of the holds recorded ({@link PermitSection}), the failed acquires, the harness's kills and pauses of holders
 * ({@link PermitFault}) and the semaphore documents as read after the run.
 *
 * <p>A hold is <b>believed</b> from its start to its end when it is protected as a lock's section is
 * ({@link HistoryChecker}): its worker still saw {@code isHeld()} true right after its end, or its process was
 * killed inside it. A hold whose worker was told of a loss is believed only at its start (the grant itself).
 * <ul>
 * <li><b>Above the limit</b>: at the start of a hold, its permits plus those of the believed holds of the same
 * semaphore granted before it (a smaller token) and not yet ended exceed the limit. As the lock's overlap rule ("a
 * section with a larger token starts before a protected section ends"): the tokens order the grants, the recorded
 * starts need not, since a worker stamps its start after the acquire returned, and a {@code SIGSTOP} in between
 * stamps it seconds late (RW_PAUSE, 2026-11-29: a read granted with token 19, paused before its start was stamped,
 * taken back meanwhile and told so, "started" after the write of token 67 that its take-back let in). Sums only grow
 * at grants, so checking every hold checks every instant, with the lock rule's strict order of the one machine
 * clock.</li>
 * <li><b>Token order</b>: no token of a semaphore is granted twice; and a hold whose acquire call began after
 * another hold's acquire had returned (its grant came later) carries a larger token. (Start order alone does not
 * order the grants of holds that run side by side: two acquires may return in the other order.)</li>
 * <li><b>Regrant</b> after a kill or a pause of a holder of {@code p} permits of a semaphore of limit {@code L}:
 * the harness's sighting of its entry gone, or the first start of another process's hold at which that hold and
 * the believed holds of other processes under way sum above {@code L - p} (impossible while the victim's entry
 * stood, so its permits were taken back and granted again), whichever is earlier. Counted from the later of the
 * SIGSTOP and the first waiter of another process, as the lock's recovery is: the first call told busy
 * ({@link Arrivals}; a call given free permits at once never watched the victim's session); a kill
 * never regranted is unrecovered. A pause is taken over when its entry went, or such a start came, before the
 * SIGCONT; its victim must then have been told in every way due: {@code isHeld()} false at its end if it worked
 * past the SIGSTOP, {@code onLeaseLost} run (due only then: never after {@code close()}),
 * {@link io.github.mongolock.LockLostException} from {@code close()}; unless its own release was accepted (the
 * SIGSTOP caught it in {@code close()} with the release on the wire). A holder caught inside {@code close()} whose
 * release then failed is told {@link io.github.mongolock.LockStoreException} by the branch's code, where a lock's
 * holder is told the loss, also when it was caught inside {@code close()} (a violation, counted in {@code storeFailedCloses}
 * too), see {@link PausedInsideCloseTest}.</li>
 * <li><b>At the end</b>: every semaphore document's {@code used} is the sum of its holders' permits and within its
 * limit, and it holds no permits of a process that stopped by itself (a killed process's stay until a waiter
 * takes them back, and nobody waits at the end).</li>
 * </ul>
 */
final class PermitsChecker {

    private static final int MAX_PROBLEMS = 20;

    /** A semaphore document as read after the run. */
    record SemaphoreState(String name, int limit, int used, int holdersSum, List<String> owners) {
    }

    /**
     * @param faults              kills and pauses of holders of permits
     * @param sections            holds recorded
     * @param twoPermitSections   of them, holds of 2 permits
     * @param killedInside        holds whose process was killed inside them
     * @param toldLost            holds whose worker was told the permits were lost
     * @param maxBelieved         per semaphore, the most permits believed held at once (the checker's own sum)
     * @param atLimit             hold starts at which the believed permits reached the limit exactly
     * @param overLimit           hold starts at which they exceeded it
     * @param tokenOrderViolations tokens granted twice, plus holds with a smaller token than a hold granted before they asked
     * @param pauseViolations     paused holders whose permits were taken and who were not told so
     * @param storeFailedCloses   paused holders caught inside {@code close()} whose permits were taken and who were told
     *                            {@link io.github.mongolock.LockStoreException} instead of the loss (see {@link PausedInsideCloseTest})
     * @param takenOver           kills and pauses whose victim's permits were granted again
     * @param unrecovered         kills whose victim's permits were never seen granted again
     * @param maxRegrantNanos     the longest from a SIGSTOP to the regrant, or -1
     * @param maxRegrantFromWatchNanos the same from the later of the SIGSTOP and the first waiter's arrival, or -1
     * @param endStateViolations  documents whose used is not the sum of their holders' or exceeds the limit
     * @param heldAtEnd           permits still held at the end by processes that stopped by themselves
     * @param stalledAcquires     read-write locks only ({@link ReadWriteChecker}): acquires that timed out while nobody
     *                            was granted the name (0 for semaphores)
     * @param maxStallNanos       read-write locks only: the longest such stall, merged per name, or -1
     * @param problems            the first violations, described for a person
     */
    record Report(int faults, int sections, int twoPermitSections, int killedInside, int toldLost, Map<String, Integer> maxBelieved,
                  int atLimit, int overLimit, int tokenOrderViolations, int pauseViolations, int storeFailedCloses, int takenOver, int unrecovered,
                  long maxRegrantNanos, long maxRegrantFromWatchNanos, int endStateViolations, int heldAtEnd,
                  int stalledAcquires, long maxStallNanos, List<String> problems) {

        static final Report NONE = new Report(0, 0, 0, 0, 0, Map.of(), 0, 0, 0, 0, 0, 0, 0, -1, -1, 0, 0, 0, -1, List.of());
    }

    private PermitsChecker() {
    }

    /**
     * Which acquire calls of other processes wait on a victim's permits, for the regrant's "first waiter's arrival":
     * for a semaphore every one; for a read-write lock ({@link ReadWriteChecker}) a dead reader's entry stands only
     * in a writer's way, so there only write calls count.
     */
    interface Waiters {
        Waiters ALL = new Waiters() {
            @Override
            public boolean waits(PermitFault victim, PermitSection hold) {
                return true;
            }

            @Override
            public boolean waits(PermitFault victim, AcquireFailure failure) {
                return true;
            }
        };

        boolean waits(PermitFault victim, PermitSection hold);

        boolean waits(PermitFault victim, AcquireFailure failure);
    }

    static Report check(List<PermitSection> sections, List<AcquireFailure> failures, List<PermitFault> faults,
                        List<SemaphoreState> states, Set<String> killedProcesses) {
        return check(sections, failures, faults, states, killedProcesses, Waiters.ALL);
    }

    /**
     * When another process's call began to wait on a victim's permits, for the regrant's "first waiter's arrival": the
     * moment its call was told busy, for the workloads' histories; a call given permits at once never watched the
     * victim's session (a semaphore may have other permits free: the torture's PERMITS_KILL counted 3.2 s from a caller
     * granted the one free permit 47 ms after the SIGSTOP, while the first caller told busy came 1.4 s later, and took
     * the permits back 1.77 s after that). And a waiter counts only while it waits: one told busy and then served by
     * other permits that came free, before the victim's session was due, leaves no one to take them back (its manager
     * still watches, and takes them back at its next look); PERMITS_PAUSE counted 2.9 s from a caller told busy 78 ms
     * after the SIGSTOP and served soon after.
     */
    interface Arrivals {
        /** Every call from the moment it began (the checker's own tests, whose histories say nothing of busy). */
        Arrivals ASKED = (process, semaphore, askedAt) -> OptionalLong.of(askedAt);

        /** When the call of {@code process} on {@code semaphore} begun at {@code askedAt} was told busy; empty if never. */
        OptionalLong toldBusyAt(String process, String semaphore, long askedAt);

        /**
         * Whether a waiter that arrived at {@code arrival} (the later of being told busy and the fault) and stopped
         * waiting at {@code waitEnded} (its grant, or its failure) counts for a regrant at {@code seen}: by default
         * every one.
         */
        default boolean counts(long arrival, long waitEnded, long seen) {
            return true;
        }

        /**
         * From the workloads' {@link AcquireFailure#BUSY} records: a call counts from when it was told busy, if ever,
         * and only if it still waited when the permits came back, or had waited {@code bound} by then.
         */
        static Arrivals toldBusy(List<AcquireFailure> busy, Duration bound) {
            Map<String, Long> told = new HashMap<>();
            for (AcquireFailure record : busy) {
                told.merge(record.process() + "\u0000" + record.lock() + "\u0000" + record.askedAt(), record.failedAt(), Math::min);
            }
            long boundNanos = bound.toNanos();
            return new Arrivals() {
                @Override
                public OptionalLong toldBusyAt(String process, String semaphore, long askedAt) {
                    Long at = told.get(process + "\u0000" + semaphore + "\u0000" + askedAt);
                    return at == null ? OptionalLong.empty() : OptionalLong.of(at);
                }

                @Override
                public boolean counts(long arrival, long waitEnded, long seen) {
                    return waitEnded - seen >= 0 || waitEnded - arrival >= boundNanos;
                }
            };
        }
    }

    static Report check(List<PermitSection> sections, List<AcquireFailure> failures, List<PermitFault> faults,
                        List<SemaphoreState> states, Set<String> killedProcesses, Waiters waiters) {
        return check(sections, failures, faults, states, killedProcesses, waiters, Arrivals.ASKED);
    }

    static Report check(List<PermitSection> sections, List<AcquireFailure> failures, List<PermitFault> faults,
                        List<SemaphoreState> states, Set<String> killedProcesses, Waiters waiters, Arrivals arrivals) {
        List<String> problems = new ArrayList<>();
        Map<String, List<PermitSection>> bySemaphore = sections.stream().collect(Collectors.groupingBy(
                PermitSection::semaphore, TreeMap::new, Collectors.toList()));
        Map<String, Integer> maxBelieved = new TreeMap<>();
        int[] limitFigures = new int[2];
        int tokenOrder = 0;
        for (Map.Entry<String, List<PermitSection>> semaphore : bySemaphore.entrySet()) {
            maxBelieved.put(semaphore.getKey(), aboveLimit(semaphore.getValue(), limitFigures, problems));
            tokenOrder += tokenOrderViolations(semaphore.getValue(), problems);
        }
        int pauseViolations = 0;
        int[] storeFailedCloses = new int[1];
        int takenOver = 0;
        int unrecovered = 0;
        long maxRegrant = -1;
        long maxFromWatch = -1;
        for (PermitFault fault : faults) {
            List<PermitSection> ofSemaphore = bySemaphore.getOrDefault(fault.semaphore(), List.of());
            Optional<PermitSection> sighted = regrantSighted(fault, ofSemaphore);
            long seen = Math.min(fault.reclaimedAt(), sighted.map(PermitSection::start).orElse(FaultEvent.UNRECOVERED));
            boolean pause = fault.kind() == FaultEvent.Kind.PAUSE;
            if (seen == FaultEvent.UNRECOVERED || (pause && seen - fault.until() >= 0)) {
                if (!pause) {
                    unrecovered++;
                    note(problems, "the permits of killed " + fault + " were never seen granted again");
                }
                continue; // a pause nobody took over: the victim may rightly still hold its permits
            }
            takenOver++;
            long watched = watchedFrom(fault, seen, ofSemaphore, failures, waiters, arrivals);
            maxRegrant = Math.max(maxRegrant, seen - fault.at());
            maxFromWatch = Math.max(maxFromWatch, seen - watched);
            if (pause) {
                pauseViolations += checkPause(fault, ofSemaphore, failures, storeFailedCloses, problems);
            }
        }
        int endState = 0;
        int heldAtEnd = 0;
        for (SemaphoreState state : states) {
            if (state.used() != state.holdersSum() || state.used() > state.limit()) {
                endState++;
                note(problems, "semaphore " + state.name() + " ends with used " + state.used() + ", its holders' permits "
                        + state.holdersSum() + ", limit " + state.limit());
            }
            for (String owner : state.owners()) {
                String instance = owner.substring(0, Math.max(owner.indexOf(':'), 0));
                String process = instance.contains("~") ? instance.substring(0, instance.indexOf('~')) : instance;
                if (!killedProcesses.contains(process)) {
                    heldAtEnd++;
                    note(problems, "semaphore " + state.name() + " still held at the end by " + owner
                            + ", whose process stopped by itself");
                }
            }
        }
        int killed = (int) sections.stream().filter(PermitSection::killedInside).count();
        int told = (int) sections.stream().filter(PermitSection::toldLost).count();
        int two = (int) sections.stream().filter(s -> s.permits() > 1).count();
        return new Report(faults.size(), sections.size(), two, killed, told, maxBelieved, limitFigures[0], limitFigures[1], tokenOrder,
                pauseViolations, storeFailedCloses[0], takenOver, unrecovered, maxRegrant, maxFromWatch, endState, heldAtEnd, 0, -1, List.copyOf(problems));
    }

    /**
     * Sweeps one semaphore's holds in start order, keeping the believed ones under way (by end) and their sum.
     *
     * @param figures {@code [starts at the limit, starts above it]}, added to
     * @return the most permits believed held at once
     */
    private static int aboveLimit(List<PermitSection> ofSemaphore, int[] figures, List<String> problems) {
        List<PermitSection> byStart = ofSemaphore.stream().sorted(Comparator.comparingLong(PermitSection::start)).toList();
        int limit = byStart.stream().mapToInt(PermitSection::limit).min().orElse(0);
        List<PermitSection> protectedHolds = byStart.stream().filter(PermitSection::protectedToEnd).toList();
        long max = 0;
        for (PermitSection hold : byStart) {
            // Granted before it and believed still held at its start (long: a read-write lock's two writes are 2 x 2^30
            // permits, ReadWriteChecker). Quadratic in the holds of one semaphore: a few thousand at most.
            List<PermitSection> believed = new ArrayList<>();
            long at = hold.permits();
            for (PermitSection earlier : protectedHolds) {
                if (earlier != hold && earlier.token() < hold.token() && earlier.end() - hold.start() > 0) {
                    believed.add(earlier);
                    at += earlier.permits();
                }
            }
            max = Math.max(max, at);
            if (at == limit) {
                figures[0]++;
            } else if (at > limit) {
                figures[1]++;
                note(problems, "above the limit on " + hold.semaphore() + ": " + at + " permits of " + limit
                        + " believed held at " + hold.start() + ": " + describe(hold) + " while "
                        + believed.stream().map(PermitsChecker::describe).toList());
            }
        }
        return (int) Math.min(max, Integer.MAX_VALUE);
    }

    private static int tokenOrderViolations(List<PermitSection> ofSemaphore, List<String> problems) {
        int count = 0;
        Set<Long> seen = new HashSet<>();
        for (PermitSection hold : ofSemaphore) {
            if (!seen.add(hold.token())) {
                count++;
                note(problems, "token " + hold.token() + " of " + hold.semaphore() + " granted twice");
            }
        }
        List<PermitSection> byStart = ofSemaphore.stream().sorted(Comparator.comparingLong(PermitSection::start)).toList();
        long[] starts = byStart.stream().mapToLong(PermitSection::start).toArray();
        int[] maxTokenUpTo = new int[byStart.size()]; // index of the largest token among the first i + 1 by start
        for (int i = 0; i < byStart.size(); i++) {
            maxTokenUpTo[i] = i == 0 || byStart.get(i).token() > byStart.get(maxTokenUpTo[i - 1]).token() ? i : maxTokenUpTo[i - 1];
        }
        for (PermitSection hold : ofSemaphore) {
            int before = firstAtOrAfter(starts, hold.askedAt()) - 1; // holds whose acquire returned before this one asked
            if (before >= 0 && byStart.get(maxTokenUpTo[before]).token() > hold.token()) {
                count++;
                note(problems, "token order on " + hold.semaphore() + ": " + describe(hold) + " asked after "
                        + describe(byStart.get(maxTokenUpTo[before])) + " had its grant, and got a smaller token");
            }
        }
        return count;
    }

    private static int firstAtOrAfter(long[] sorted, long nanos) {
        int low = 0;
        int high = sorted.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (sorted[mid] - nanos < 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /**
     * The first start, after the SIGSTOP, of another process's hold at which it and the believed holds of other
     * processes under way sum above {@code limit - permits}: the victim's permits were granted again by then.
     */
    private static Optional<PermitSection> regrantSighted(PermitFault fault, List<PermitSection> ofSemaphore) {
        List<PermitSection> others = ofSemaphore.stream().filter(s -> !s.process().equals(fault.process()))
                .sorted(Comparator.comparingLong(PermitSection::start)).toList();
        int limit = others.stream().mapToInt(PermitSection::limit).min().orElse(PermitsWorkload.limitOf(fault.semaphore()));
        for (PermitSection candidate : others) {
            if (candidate.start() - fault.at() <= 0) {
                continue;
            }
            long sum = candidate.permits();
            for (PermitSection other : others) {
                if (other != candidate && other.protectedToEnd() && other.activeAt(candidate.start())) {
                    sum += other.permits();
                }
            }
            if (sum > limit - fault.permits()) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /**
     * The later of the SIGSTOP and the earliest arrival ({@link Arrivals}) of a call of another process on the semaphore
     * under way then or begun after.
     */
    private static long watchedFrom(PermitFault fault, long seen, List<PermitSection> ofSemaphore, List<AcquireFailure> failures,
                                    Waiters waiters, Arrivals arrivals) {
        long earliest = Long.MAX_VALUE;
        for (PermitSection hold : ofSemaphore) {
            if (!hold.process().equals(fault.process()) && hold.start() - fault.at() >= 0 && waiters.waits(fault, hold)) {
                OptionalLong arrived = arrivals.toldBusyAt(hold.process(), hold.semaphore(), hold.askedAt());
                if (arrived.isPresent() && arrived.getAsLong() - seen <= 0
                        && arrivals.counts(Math.max(arrived.getAsLong(), fault.at()), hold.start(), seen)) {
                    earliest = Math.min(earliest, arrived.getAsLong());
                }
            }
        }
        for (AcquireFailure failure : failures) {
            if (failure.lock().equals(fault.semaphore()) && !failure.process().equals(fault.process())
                    && failure.failedAt() - fault.at() >= 0 && waiters.waits(fault, failure)) {
                OptionalLong arrived = arrivals.toldBusyAt(failure.process(), failure.lock(), failure.askedAt());
                if (arrived.isPresent() && arrived.getAsLong() - seen <= 0
                        && arrivals.counts(Math.max(arrived.getAsLong(), fault.at()), failure.failedAt(), seen)) {
                    earliest = Math.min(earliest, arrived.getAsLong());
                }
            }
        }
        return earliest == Long.MAX_VALUE ? fault.at() : Math.max(fault.at(), earliest);
    }

    private static int checkPause(PermitFault pause, List<PermitSection> ofSemaphore, List<AcquireFailure> failures,
                                  int[] storeFailedCloses, List<String> problems) {
        Optional<PermitSection> paused = ofSemaphore.stream().filter(s -> s.owner().equals(pause.owner())).findFirst();
        if (paused.isEmpty()) {
            // The grant landed but its answer reached the caller too late to be believed: the acquire failed.
            boolean neverReceived = failures.stream().anyMatch(f -> f.process().equals(pause.process())
                    && f.lock().equals(pause.semaphore()) && f.askedAt() - pause.at() < 0 && f.failedAt() - pause.at() >= 0);
            if (!neverReceived) {
                note(problems, pause + ": the paused hold is not in the history");
                return 1;
            }
            return 0;
        }
        PermitSection hold = paused.get();
        boolean releasedItself = hold.close() == SectionRecord.CloseOutcome.OK;
        boolean workedThroughPause = hold.end() - pause.signalled() > 0;
        if (!workedThroughPause && hold.close() == SectionRecord.CloseOutcome.STORE) {
            // Caught inside close(), whose release then failed (its timeout passed while frozen): the holder must be
            // told the loss there, as a lock's is (PausedInsideCloseTest). Counted in its own column too, to see it.
            storeFailedCloses[0]++;
            note(problems, "paused inside close(), told LockStoreException instead of LockLostException (PausedInsideCloseTest): "
                    + describe(hold));
            return 1;
        }
        if (!releasedItself && (hold.open() || (workedThroughPause && (hold.heldAtEnd() || !hold.listenerLost()))
                || hold.close() != SectionRecord.CloseOutcome.LOST)) {
            note(problems, "paused holder of permits not told of its loss: " + describe(hold));
            return 1;
        }
        return 0;
    }

    private static String describe(PermitSection hold) {
        return hold.process() + "/" + hold.permits() + " permit(s) token " + hold.token() + " [" + hold.start() + ", "
                + (hold.open() ? "killed at " : "") + hold.end() + "] heldAtEnd=" + hold.heldAtEnd() + " close="
                + hold.close() + " listener=" + hold.listenerLost();
    }

    private static void note(List<String> problems, String problem) {
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(problem);
        }
    }
}
