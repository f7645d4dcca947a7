package io.github.mongolock.torture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a timeline picture ({@link TimelinePicture}) draws of one scenario run: one bar per critical
 * section (or, in a leader election, per term and process), on a lane per lock and worker process, the
 * faults injected, and the checker's verdict. Times are {@link System#nanoTime()} values, as recorded;
 * {@code origin} is the scenario's start, from which the picture counts seconds.
 *
 * @param title     what ran: the scenario and the configuration
 * @param origin    the scenario's start (nanoTime)
 * @param processes every worker process that ran, in lane order: by slot, a replacement right under the
 *                  process it replaced
 * @param locks     the lock names, one panel each
 * @param barNoun   what a bar is, for the caption ("critical section", "term")
 * @param tokenNoun what its number is ("token", "term")
 * @param overlaps  pairs of bars the checker's overlap rule flags, drawn so that they cannot be missed
 * @param closes    lock managers closed by their own workers (the shutdown scenario), drawn on the lanes
 * @param verdict   the checker's verdict, one sentence for the caption
 */
record Timeline(String title, long origin, List<String> processes, List<String> locks, String barNoun,
                String tokenNoun, List<Bar> bars, List<Overlap> overlaps, List<FaultEvent> faults,
                List<NetworkFault> network, List<LifecycleHistory.ManagerClose> closes, String verdict) {

    private static final Pattern PROCESS = Pattern.compile("w(\\d+)\\.(\\d+)");

    Timeline {
        processes = processes.stream().sorted(Comparator.comparing(Timeline::slot).thenComparing(Timeline::generation)
                .thenComparing(Comparator.naturalOrder())).toList();
        locks = List.copyOf(locks);
        bars = List.copyOf(bars);
        overlaps = List.copyOf(overlaps);
        faults = List.copyOf(faults);
        network = List.copyOf(network);
        closes = List.copyOf(closes);
    }

    /**
     * One bar: a critical section from {@code acquire}'s return to the end of its work (or the death of
     * its process), or a term from its first to its last recorded yes answer.
     *
     * @param note what a reader hovering over it should also know (killed inside, write refused...), or empty
     */
    record Bar(String process, String lock, long token, long start, long end, Style style, String note) {

        enum Style {
            /** Protected to its end, as far as its worker knew. */
            HELD,
            /** Its worker was told the lease was lost: the lock no longer protected it to its end. */
            TOLD_LOST,
            /** Its process was killed inside it: it ends at the death, its lease outliving it. */
            KILLED
        }
    }

    /**
     * A section with a larger token that ran while a protected one with a smaller token had not ended,
     * from {@code from} to {@code to}: the checker's overlap rule.
     */
    record Overlap(String lock, String earlierProcess, long earlierToken, String laterProcess, long laterToken,
                   long from, long to) {
    }

    /** The sections of a lock-loop scenario; {@code closes} are the shutdown scenario's manager closes (else empty). */
    static Timeline ofSections(String title, long origin, List<String> processes, List<String> locks,
                               List<SectionRecord> sections, List<FaultEvent> faults, List<NetworkFault> network,
                               List<LifecycleHistory.ManagerClose> closes, String verdict) {
        List<Bar> bars = new ArrayList<>(sections.size());
        for (SectionRecord section : sections) {
            bars.add(new Bar(section.process(), section.lock(), section.token(), section.start(), section.end(),
                    section.killedInside() ? Bar.Style.KILLED : section.toldLost() ? Bar.Style.TOLD_LOST : Bar.Style.HELD,
                    note(section)));
        }
        return new Timeline(title, origin, processes, locks, "critical section", "token", bars, overlaps(sections),
                faults, network, closes, verdict);
    }

    /**
     * A leader election: a bar per term and process, from the term's first recorded yes answer (the call's
     * start) to its last (the call's end). The workers record a sample of their yes answers, never widening
     * a term (see {@link LeaderHistory}). Overlaps are not drawn: whether two terms surely overlapped is the
     * {@link LeaderChecker}'s finer judgement (its double leaders), which the verdict reports.
     */
    static Timeline ofElection(String title, long origin, List<String> processes, String election, LeaderHistory history,
                               List<FaultEvent> faults, List<NetworkFault> network, String verdict) {
        Map<String, long[]> terms = new LinkedHashMap<>();
        for (LeaderHistory.Answer answer : history.answers()) {
            terms.merge(answer.process() + "\t" + answer.term(), new long[] {answer.before(), answer.after(), 1},
                    (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1]), a[2] + b[2]});
        }
        List<Bar> bars = new ArrayList<>();
        terms.forEach((key, span) -> {
            String[] processTerm = key.split("\t");
            long term = Long.parseLong(processTerm[1]);
            String revoked = history.revocations().stream()
                    .filter(n -> n.process().equals(processTerm[0]) && n.term() == term).map(n -> ", revoked: " + n.reason())
                    .findFirst().orElse("");
            bars.add(new Bar(processTerm[0], election, term, span[0], span[1], Bar.Style.HELD,
                    span[2] + " yes answers recorded" + revoked));
        });
        return new Timeline(title, origin, processes, List.of(election), "term", "term", bars, List.of(), faults,
                network, List.of(), verdict);
    }

    /** The lane label: the process, and the one it replaced (its lane ends with the kill, where this one's starts). */
    String laneLabel(String process) {
        Matcher m = PROCESS.matcher(process);
        return m.matches() && Integer.parseInt(m.group(2)) > 0
                ? process + " replaces w" + m.group(1) + "." + (Integer.parseInt(m.group(2)) - 1) : process;
    }

    /** Where a process's lane begins: the scenario's start, or, for a replacement, the death of the process it replaced. */
    long laneStart(String process) {
        Matcher m = PROCESS.matcher(process);
        if (!m.matches() || Integer.parseInt(m.group(2)) == 0) {
            return origin;
        }
        String replaced = "w" + m.group(1) + "." + (Integer.parseInt(m.group(2)) - 1);
        return killedAt(replaced).orElse(origin);
    }

    /** Where it ends: its death if it was killed, else the end of the run (it stopped by itself after its last section). */
    long laneEnd(String process) {
        return killedAt(process).orElse(end());
    }

    private Optional<Long> killedAt(String process) {
        return faults.stream().filter(f -> f.kind() == FaultEvent.Kind.KILL && f.process().equals(process))
                .map(FaultEvent::until).findFirst();
    }

    /** Whether the run had a fault of this kind. */
    boolean has(FaultEvent.Kind kind) {
        return faults.stream().anyMatch(f -> f.kind() == kind);
    }

    /** Where the picture's time ends: the last thing drawn. */
    long end() {
        long end = origin;
        for (Bar bar : bars) {
            end = Math.max(end, bar.end());
        }
        for (FaultEvent fault : faults) {
            end = Math.max(end, Math.max(fault.until(), fault.recovered() ? fault.recoveredAt() : fault.until()));
        }
        for (NetworkFault fault : network) {
            end = Math.max(end, fault.until());
        }
        for (LifecycleHistory.ManagerClose close : closes) {
            end = Math.max(end, close.closeEnd());
        }
        return end;
    }

    private static String note(SectionRecord section) {
        List<String> notes = new ArrayList<>();
        if (section.open()) {
            notes.add("process killed inside its work");
        } else if (section.killedInside()) {
            notes.add("process killed inside close()");
        }
        if (section.toldLost()) {
            notes.add("told it lost the lease");
        }
        if (section.write() != SectionRecord.WriteOutcome.ACCEPTED && section.write() != SectionRecord.WriteOutcome.NONE) {
            notes.add("fenced write " + section.write());
        }
        return String.join(", ", notes);
    }

    /**
     * The checker's overlap rule ({@link HistoryChecker}), pair by pair so that each can be drawn: a
     * protected section (its worker still held the lock at its end, or died in it) and a section of the
     * same lock with a larger token whose times intersect. Sections are sorted by start, and each is
     * compared only with those that start before it ends: a few, except for a paused holder's long one.
     */
    static List<Overlap> overlaps(List<SectionRecord> sections) {
        List<SectionRecord> byStart = sections.stream()
                .sorted(Comparator.comparing(SectionRecord::lock).thenComparingLong(SectionRecord::start)).toList();
        List<Overlap> overlaps = new ArrayList<>();
        for (int i = 0; i < byStart.size(); i++) {
            SectionRecord a = byStart.get(i);
            for (int j = i + 1; j < byStart.size() && byStart.get(j).lock().equals(a.lock())
                    && byStart.get(j).start() < a.end(); j++) {
                SectionRecord b = byStart.get(j);
                SectionRecord earlier = a.token() < b.token() ? a : b;
                SectionRecord later = earlier == a ? b : a;
                if (earlier.token() != later.token() && earlier.protectedToEnd()) {
                    overlaps.add(new Overlap(a.lock(), earlier.process(), earlier.token(), later.process(), later.token(),
                            b.start(), Math.min(a.end(), b.end())));
                }
            }
        }
        return overlaps;
    }

    private static int slot(String process) {
        Matcher m = PROCESS.matcher(process);
        return m.matches() ? Integer.parseInt(m.group(1)) : Integer.MAX_VALUE;
    }

    private static int generation(String process) {
        Matcher m = PROCESS.matcher(process);
        return m.matches() ? Integer.parseInt(m.group(2)) : Integer.MAX_VALUE;
    }
}
