package io.github.mongolock.torture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Checks a run's history against what the lock promises; a pure function of the records.
 *
 * <p><b>Protected section</b>: one whose worker still saw {@code isHeld()} true right after its end
 * (a true answer means the lease was confirmed by the database less than a lease time earlier, so
 * nobody else could have been granted the lock by then), or one whose process was killed inside it
 * (its lease outlives it). A section whose worker learned it had lost the lease is not protected
 * past that point: the lock cannot stop a process that was frozen from running on, it can only tell
 * it, and the fenced counter is what keeps its late writes out.
 *
 * <ul>
 * <li><b>Overlap</b>: a section with a larger token of the same lock starts before a protected
 * section ends.</li>
 * <li><b>Token order</b>: protected sections of a lock, in start order, must carry strictly
 * increasing tokens, and no token may be handed out twice.</li>
 * <li><b>Lost updates</b>: from the counter documents (see {@link CounterState}).</li>
 * <li><b>Pauses</b>: when a later holder took over during a pause (the paused holder's own release
 * was not accepted: a pause can catch a release on the wire), the paused section must show all
 * three signs of loss (isHeld false at its end if its work went on past the SIGSTOP, LEASE_LOST
 * heard, close threw LockLostException) and the next holder must have released its lock normally (unless
 * it was paused or killed in its turn).
 * With {@code networkFaults}, a close() that could not reach MongoDB (LockStoreException) also
 * counts as told (alone, for a holder caught inside that close(): no LEASE_LOST comes for a closed
 * session), and the next holder is not checked (its own release may meet a cut connection).</li>
 * <li><b>Recovery</b>: from a kill's or pause's SIGSTOP, or from the end of an outage, to the next
 * grant of the lock, and from the later of the SIGSTOP and the first waiter's arrival (recovery from
 * the watch): see {@link RecoveryChecker}. A victim recorded holding many locks is judged on each of
 * them, by this rule and the pause rule, and the last of them to be granted again is reported.</li>
 * <li><b>Clock steps</b> of the database are recorded as faults but have no recovery of their own:
 * a step that handed a live holder's lock to another shows as an overlap or a token-order violation,
 * one that kept a dead holder's lock blocked as the slow recovery of a kill made while it held.</li>
 * <li><b>Lifecycle</b> (managers closed under load, holds handed over between threads): see
 * {@link LifecycleChecker}.</li>
 * <li><b>Leader elections</b> (no critical sections; isLeader() answers and the listener's calls): see
 * {@link LeaderChecker}.</li>
 * </ul>
 */
final class HistoryChecker {

    private static final int MAX_PROBLEMS = 20;

    private HistoryChecker() {
    }

    static CheckReport check(List<SectionRecord> sections, List<AcquireFailure> failures, List<FaultEvent> faults,
                             List<CounterState> counters, int locksHeldAtEnd, boolean networkFaults) {
        return check(sections, failures, faults, counters, locksHeldAtEnd, networkFaults, LifecycleHistory.NONE);
    }

    /** @param lifecycle manager closes, hand-overs and re-entries, checked by {@link LifecycleChecker} */
    static CheckReport check(List<SectionRecord> sections, List<AcquireFailure> failures, List<FaultEvent> faults,
                             List<CounterState> counters, int locksHeldAtEnd, boolean networkFaults,
                             LifecycleHistory lifecycle) {
        return check(sections, failures, faults, counters, locksHeldAtEnd, networkFaults, lifecycle, Optional.empty());
    }

    /**
     * @param election the leader answers and listener calls of a leader election run, checked by
     *                 {@link LeaderChecker}, which then also judges the recovery from kills and pauses (a
     *                 leader's faults end with a larger term, not with a critical section)
     */
    static CheckReport check(List<SectionRecord> sections, List<AcquireFailure> failures, List<FaultEvent> faults,
                             List<CounterState> counters, int locksHeldAtEnd, boolean networkFaults,
                             LifecycleHistory lifecycle, Optional<LeaderHistory> election) {
        List<String> problems = new ArrayList<>();
        Map<String, List<SectionRecord>> byLock = sections.stream()
                .collect(Collectors.groupingBy(SectionRecord::lock, TreeMap::new, Collectors.toList()));
        int overlaps = 0;
        int tokenOrder = 0;
        int takenFromLive = 0;
        long maxIdleGap = -1;
        for (List<SectionRecord> ofLock : byLock.values()) {
            overlaps += overlaps(ofLock, problems);
            tokenOrder += tokenOrderViolations(ofLock, problems);
            maxIdleGap = Math.max(maxIdleGap, maxIdleGap(ofLock));
        }
        long lostUpdates = 0;
        long unfencedLost = 0;
        for (CounterState counter : counters) {
            lostUpdates += counter.lostUpdates();
            unfencedLost += counter.unfencedLostUpdates();
            if (counter.lostUpdates() != 0) {
                note(problems, "counter of " + counter.lock() + ": " + counter.writes() + " fenced writes but value "
                        + counter.value());
            }
        }
        if (locksHeldAtEnd > 0) {
            note(problems, locksHeldAtEnd + " lock(s) still held after the run");
        }
        int pauseViolations = 0;
        // Elections are judged below: a leader's faults end with a larger term, not with a critical section.
        RecoveryChecker.Recovery recovery = election.isPresent()
                ? new RecoveryChecker.Recovery(-1, -1, 0, CheckReport.VictimFigures.NONE, CheckReport.VictimFigures.NONE)
                : RecoveryChecker.check(sections, failures, faults, problem -> note(problems, problem));
        long maxRecovery = recovery.maxNanos();
        long maxRecoveryFromWatch = recovery.maxFromWatchNanos();
        int unrecovered = recovery.unrecovered();
        List<FaultEvent> pausesPerLock = faults.stream().filter(fault -> fault.kind() == FaultEvent.Kind.PAUSE)
                .flatMap(fault -> fault.perLock().stream()).toList();
        Set<String> pausedSections = new HashSet<>();
        for (FaultEvent pause : pausesPerLock) {
            pausedSections.add(pause.lock() + "#" + pause.token());
        }
        for (FaultEvent pause : election.isPresent() ? List.<FaultEvent>of() : pausesPerLock) {
            pauseViolations += checkPause(pause, byLock.getOrDefault(pause.lock(), List.of()), failures,
                    pausedSections, networkFaults, problems);
        }
        int storeFailures = 0;
        long maxStoreFailure = -1;
        for (AcquireFailure failure : failures) {
            if (failure.kind().equals("STORE")) {
                storeFailures++;
                if (duringOutage(failure.askedAt(), faults)) {
                    maxStoreFailure = Math.max(maxStoreFailure, failure.durationNanos());
                }
            }
        }
        CheckReport.LifecycleFigures figures = LifecycleChecker.check(sections, failures, lifecycle,
                problem -> note(problems, problem));
        // Last, so that its notes never crowd out the rules' own; and described only where nothing else
        // (network faults, managers closed under their sections) takes a lock from a running holder.
        boolean onlyLiveHoldersLose = !networkFaults && lifecycle.closes().isEmpty();
        for (List<SectionRecord> ofLock : byLock.values()) {
            takenFromLive += takenFromLiveHolders(ofLock, faults, onlyLiveHoldersLose ? problems : null);
        }
        CheckReport.LeaderFigures leader = CheckReport.LeaderFigures.NONE;
        if (election.isPresent()) {
            leader = LeaderChecker.check(election.get(), faults, problem -> note(problems, problem));
            maxRecovery = leader.maxFailoverNanos();
            maxRecoveryFromWatch = leader.maxFailoverNanos(); // every candidate polls all along: it is always watching
            unrecovered = leader.unrecovered();
        }
        int killed = (int) sections.stream().filter(SectionRecord::killedInside).count();
        int toldLost = (int) sections.stream().filter(SectionRecord::toldLost).count();
        return new CheckReport(sections.size(), killed, toldLost, overlaps, tokenOrder, lostUpdates, unfencedLost,
                locksHeldAtEnd, pauseViolations, maxRecovery, maxRecoveryFromWatch, unrecovered, maxIdleGap, storeFailures, maxStoreFailure,
                takenFromLive, figures, leader, recovery.kills(), recovery.pauses(), List.copyOf(problems));
    }

    private static boolean duringOutage(long nanos, List<FaultEvent> faults) {
        return faults.stream().anyMatch(f -> f.kind() == FaultEvent.Kind.OUTAGE && nanos >= f.at() && nanos < f.until());
    }

    /** Counts protected sections into which a later-token section started; O(n log n). */
    private static int overlaps(List<SectionRecord> ofLock, List<String> problems) {
        List<SectionRecord> byToken = new ArrayList<>(ofLock);
        byToken.sort(Comparator.comparingLong(SectionRecord::token));
        int n = byToken.size();
        // laterStart[i]: the section with the earliest start among those after i in token order.
        int[] earliestAfter = new int[n + 1];
        earliestAfter[n] = -1;
        for (int i = n - 1; i >= 0; i--) {
            int after = earliestAfter[i + 1];
            earliestAfter[i] = i + 1 < n && (after < 0 || byToken.get(i + 1).start() < byToken.get(after).start())
                    ? i + 1 : after;
        }
        int count = 0;
        for (int i = 0; i < n; i++) {
            SectionRecord section = byToken.get(i);
            int j = earliestAfter[i];
            if (section.protectedToEnd() && j >= 0 && byToken.get(j).token() > section.token()
                    && byToken.get(j).start() < section.end()) {
                count++;
                note(problems, "overlap on " + section.lock() + ": " + describe(section) + " and " + describe(byToken.get(j)));
            }
        }
        return count;
    }

    /**
     * Sections into which a section with the next larger token of the same lock started, though their
     * process was neither killed inside them nor paused during them: their lock went to another while
     * they ran, whether or not they were told. Only a holder that could not renew for a whole lease
     * (its MongoDB calls failing or stalled) may lose its lock so; not a problem by itself where the
     * network fails, so the caller decides what it means.
     */
    private static int takenFromLiveHolders(List<SectionRecord> ofLock, List<FaultEvent> faults, List<String> problems) {
        List<SectionRecord> byToken = ofLock.stream().sorted(Comparator.comparingLong(SectionRecord::token)).toList();
        int count = 0;
        for (int i = 0; i + 1 < byToken.size(); i++) {
            SectionRecord section = byToken.get(i);
            SectionRecord next = byToken.get(i + 1);
            boolean paused = faults.stream().anyMatch(f -> f.kind() == FaultEvent.Kind.PAUSE
                    && f.process().equals(section.process()) && f.at() - section.end() < 0 && section.start() - f.until() < 0);
            if (!section.open() && !paused && next.token() > section.token() && next.start() - section.end() < 0) {
                count++;
                if (problems != null) {
                    note(problems, "taken from a live holder on " + section.lock() + ": " + describe(section) + " and "
                            + describe(next));
                }
            }
        }
        return count;
    }

    private static int tokenOrderViolations(List<SectionRecord> ofLock, List<String> problems) {
        int count = 0;
        Set<Long> seen = new HashSet<>();
        for (SectionRecord section : ofLock) {
            if (!seen.add(section.token())) {
                count++;
                note(problems, "token " + section.token() + " of " + section.lock() + " handed out twice");
            }
        }
        List<SectionRecord> protectedByStart = ofLock.stream().filter(SectionRecord::protectedToEnd)
                .sorted(Comparator.comparingLong(SectionRecord::start)).toList();
        for (int i = 1; i < protectedByStart.size(); i++) {
            // Equal tokens were counted above as handed out twice.
            if (protectedByStart.get(i).token() < protectedByStart.get(i - 1).token()) {
                count++;
                note(problems, "token order on " + protectedByStart.get(i).lock() + ": "
                        + describe(protectedByStart.get(i - 1)) + " then " + describe(protectedByStart.get(i)));
            }
        }
        return count;
    }

    private static long maxIdleGap(List<SectionRecord> ofLock) {
        List<SectionRecord> byStart = ofLock.stream().sorted(Comparator.comparingLong(SectionRecord::start)).toList();
        long maxGap = -1;
        long busyUntil = Long.MIN_VALUE;
        for (SectionRecord section : byStart) {
            if (busyUntil != Long.MIN_VALUE) {
                maxGap = Math.max(maxGap, section.start() - busyUntil);
            }
            busyUntil = busyUntil == Long.MIN_VALUE ? section.end() : Math.max(busyUntil, section.end());
        }
        return maxGap;
    }

    private static int checkPause(FaultEvent pause, List<SectionRecord> ofLock, List<AcquireFailure> failures,
                                  Set<String> pausedSections, boolean networkFaults, List<String> problems) {
        Optional<SectionRecord> paused = ofLock.stream().filter(s -> s.token() == pause.token()).findFirst();
        // The grant landed but never reached a caller, so the process had no section to be told about.
        if (RecoveryChecker.grantNeverReceived(pause, ofLock, failures)) {
            return 0;
        }
        if (paused.isEmpty()) {
            note(problems, pause + ": the paused section is not in the history");
            return 1;
        }
        Optional<SectionRecord> successor = ofLock.stream().filter(s -> s.token() > pause.token())
                .min(Comparator.comparingLong(SectionRecord::token));
        boolean takenOver = successor.isPresent() && successor.get().start() < pause.until();
        if (!takenOver) {
            return 0; // nobody wanted the lock meanwhile: the paused holder may legitimately still have it
        }
        SectionRecord section = paused.get();
        int count = 0;
        // Its own release was accepted, so the lock was still its own (owner and version) when it landed:
        // the SIGSTOP caught it inside close() with the release on the wire, and nobody took over.
        boolean releasedItself = section.close() == SectionRecord.CloseOutcome.OK;
        // A pause that caught the holder inside close() finds its work over and isHeld() true at its end.
        boolean workedThroughPause = section.end() > pause.signalled();
        // With the network failing too, close() may not reach MongoDB and report LockStoreException instead.
        boolean closeTold = section.close() == SectionRecord.CloseOutcome.LOST
                || (networkFaults && section.close() == SectionRecord.CloseOutcome.STORE);
        // Caught inside a close() whose release could not reach MongoDB: the session is closed, its lease
        // is no longer renewed and runs out, and the LockStoreException is all the holder can be told.
        boolean listenerDue = workedThroughPause || section.close() != SectionRecord.CloseOutcome.STORE;
        if (!releasedItself && (section.open() || (workedThroughPause && section.heldAtEnd())
                || (listenerDue && !section.listenerLost()) || !closeTold)) {
            count++;
            note(problems, "paused holder not told of its loss: " + describe(section));
        }
        SectionRecord next = successor.get();
        // A next holder paused or killed in its turn (the harness's next fault) could not keep its lock either.
        if (!networkFaults && !pausedSections.contains(next.lock() + "#" + next.token()) && !next.killedInside()
                && (next.close() != SectionRecord.CloseOutcome.OK || !next.heldAtEnd())) {
            count++;
            note(problems, "the holder after a pause did not keep its lock: " + describe(next));
        }
        return count;
    }

    private static String describe(SectionRecord section) {
        return section.process() + "/token " + section.token() + " [" + section.start() + ", "
                + (section.open() ? "killed at " : "") + section.end() + "] write=" + section.write()
                + " heldAtEnd=" + section.heldAtEnd() + " close=" + section.close() + " listener=" + section.listenerLost();
    }

    private static void note(List<String> problems, String problem) {
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(problem);
        }
    }
}
