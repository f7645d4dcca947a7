package io.github.mongolock.torture;

import io.github.mongolock.core.ReadWriteStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The checker's rules for leased read-write locks (issue 32 part 3; spec/RWLOCK-DESIGN.md on its branch, and
 * {@link io.github.mongolock.ReadWriteLock}'s promises): the semaphore's rules ({@link PermitsChecker}) over the
 * holds recorded as the design maps them, a read 1 permit and a write {@link ReadWriteStore#WHOLE} of a limit of
 * {@code WHOLE}. Belief and times are the lock checker's, as there.
 * <ul>
 * <li><b>Writer beside another holder</b>: at the start of a hold, a believed writer under way beside it, or it a
 * writer beside any believed holder under way (reader or writer): exactly the semaphore's "above the limit" at
 * limit {@code WHOLE}, since one read and one write already sum above it and no number of readers reaches it.</li>
 * <li><b>Token order</b>, the semaphore's over both modes: no token of a name twice, and a hold whose acquire began
 * after another's had returned carries the larger token ("every grant's token exceeds every earlier grant's", reads
 * and writes alike); so write tokens are distinct and grow in grant order.</li>
 * <li><b>Regrant</b> of a killed or paused holder's access, the semaphore's: a dead writer's once any other
 * process's hold starts (or its entry was seen gone), a dead reader's once another process's writer starts (or its
 * entry was seen gone: readers pass a dead reader, only a writer needs its entry gone). Counted from the later of
 * the SIGSTOP and the first waiter told busy: any acquire of another process for a dead writer, a write acquire for a dead
 * reader ({@link ReadWriteWorkload#WRITE_TIMEOUT}); the lock's bound.</li>
 * <li><b>Told</b> and <b>at the end</b>: the semaphore's (the documents' {@code used} the sum of their holders'
 * permits, within {@code WHOLE}; nothing held by a process that stopped by itself).</li>
 * </ul>
 * The report is the semaphore's with three figures read for read-write locks: {@code twoPermitSections} counts the
 * write holds, {@code atLimit} the writes that started alone, {@code maxBelieved} the most readers believed at once
 * per name (not permits).
 */
final class ReadWriteChecker {

    /** Only write calls of other processes wait on a dead reader; every call waits on a dead writer. */
    static final PermitsChecker.Waiters WAITERS = new PermitsChecker.Waiters() {
        @Override
        public boolean waits(PermitFault victim, PermitSection hold) {
            return victim.permits() == ReadWriteStore.WHOLE || ReadWriteWorkload.isWrite(hold);
        }

        @Override
        public boolean waits(PermitFault victim, AcquireFailure failure) {
            return victim.permits() == ReadWriteStore.WHOLE || failure.kind().equals(ReadWriteWorkload.WRITE_TIMEOUT);
        }
    };

    private ReadWriteChecker() {
    }

    static PermitsChecker.Report check(List<PermitSection> holds, List<AcquireFailure> failures, List<PermitFault> faults,
                                       List<PermitsChecker.SemaphoreState> states, Set<String> killedProcesses) {
        return check(holds, failures, faults, states, killedProcesses, PermitsChecker.Arrivals.ASKED);
    }

    /** @param arrivals when another process's call began to wait (see {@link PermitsChecker.Arrivals}) */
    static PermitsChecker.Report check(List<PermitSection> holds, List<AcquireFailure> failures, List<PermitFault> faults,
                                       List<PermitsChecker.SemaphoreState> states, Set<String> killedProcesses,
                                       PermitsChecker.Arrivals arrivals) {
        PermitsChecker.Report p = PermitsChecker.check(holds, failures, faults, states, killedProcesses, WAITERS, arrivals);
        List<String> problems = new ArrayList<>(p.problems().stream().map(ReadWriteChecker::reword).toList());
        int writes = (int) holds.stream().filter(ReadWriteWorkload::isWrite).count();
        long[] stall = stalls(holds, failures, faults, problems);
        return new PermitsChecker.Report(p.faults(), p.sections(), writes, p.killedInside(), p.toldLost(), mostReaders(holds),
                p.atLimit(), p.overLimit(), p.tokenOrderViolations(), p.pauseViolations(), p.storeFailedCloses(), p.takenOver(),
                p.unrecovered(), p.maxRegrantNanos(), p.maxRegrantFromWatchNanos(), p.endStateViolations(), p.heldAtEnd(),
                (int) stall[0], stall[1], List.copyOf(problems));
    }

    /**
     * <b>Stalls</b>: an acquire of a live process that timed out while no hold of its name started between its call
     * and its timeout (the wait time, 3 s, is above the regrant bound, 2.3 s: a correct lock gives a dead holder's
     * access back before). Acquires of a fault's victim overlapping its fault are left out. Stalled intervals are
     * merged per name.
     *
     * @return {@code [stalled acquires, the longest merged stall in nanos or -1]}
     */
    static long[] stalls(List<PermitSection> holds, List<AcquireFailure> failures, List<PermitFault> faults,
                         List<String> problems) {
        Map<String, long[]> starts = new TreeMap<>();
        holds.stream().collect(Collectors.groupingBy(PermitSection::semaphore)).forEach((name, ofName) ->
                starts.put(name, ofName.stream().mapToLong(PermitSection::start).sorted().toArray()));
        Map<String, List<AcquireFailure>> stalled = new TreeMap<>();
        for (AcquireFailure failure : failures) {
            if (!failure.kind().startsWith("TIMEOUT") || faults.stream().anyMatch(f -> f.process().equals(failure.process())
                    && failure.askedAt() - f.until() <= 0 && failure.failedAt() - f.at() >= 0)) {
                continue;
            }
            long[] ofName = starts.getOrDefault(failure.lock(), new long[0]);
            boolean granted = false;
            for (long start : ofName) {
                if (start - failure.askedAt() >= 0 && start - failure.failedAt() <= 0) {
                    granted = true;
                    break;
                }
            }
            if (!granted) {
                stalled.computeIfAbsent(failure.lock(), name -> new ArrayList<>()).add(failure);
            }
        }
        long count = 0;
        long longest = -1;
        for (Map.Entry<String, List<AcquireFailure>> name : stalled.entrySet()) {
            List<AcquireFailure> byAsk = name.getValue().stream().sorted(Comparator.comparingLong(AcquireFailure::askedAt)).toList();
            count += byAsk.size();
            long from = byAsk.get(0).askedAt();
            long to = byAsk.get(0).failedAt();
            long longestOfName = -1;
            for (AcquireFailure failure : byAsk) {
                if (failure.askedAt() - to > 0) {
                    longestOfName = Math.max(longestOfName, to - from);
                    from = failure.askedAt();
                }
                to = Math.max(to, failure.failedAt());
            }
            longestOfName = Math.max(longestOfName, to - from);
            longest = Math.max(longest, longestOfName);
            problems.add(0, "stalled: " + name.getKey() + " granted to nobody for " + longestOfName / 1_000_000
                    + " ms while " + byAsk.size() + " acquire(s) of live processes timed out, the first "
                    + byAsk.get(0).process() + " " + byAsk.get(0).kind() + " asked at " + byAsk.get(0).askedAt());
        }
        return new long[] {count, longest};
    }

    /** Per name, the most read holds believed under way at once (a sweep in start order, as the semaphore's). */
    static Map<String, Integer> mostReaders(List<PermitSection> holds) {
        Map<String, List<PermitSection>> byName = holds.stream().filter(hold -> !ReadWriteWorkload.isWrite(hold))
                .collect(Collectors.groupingBy(PermitSection::semaphore, TreeMap::new, Collectors.toList()));
        Map<String, Integer> most = new TreeMap<>();
        for (Map.Entry<String, List<PermitSection>> name : byName.entrySet()) {
            PriorityQueue<PermitSection> believed = new PriorityQueue<>(Comparator.comparingLong(PermitSection::end));
            int max = 0;
            for (PermitSection read : name.getValue().stream().sorted(Comparator.comparingLong(PermitSection::start)).toList()) {
                while (!believed.isEmpty() && believed.peek().end() - read.start() <= 0) {
                    believed.poll();
                }
                max = Math.max(max, believed.size() + 1);
                if (read.protectedToEnd()) {
                    believed.add(read);
                }
            }
            most.put(name.getKey(), max);
        }
        return most;
    }

    /** The semaphore's words for the read-write lock's: permit counts as modes. */
    private static String reword(String problem) {
        String whole = String.valueOf(ReadWriteStore.WHOLE);
        return problem.replace("above the limit on", "writer beside another holder on")
                .replace("/" + whole + " permit(s)", " write").replace("/1 permit(s)", " read")
                .replace("permits of " + whole + " believed held", "permits (a write is " + whole + ") believed held");
    }
}
