package io.github.mongolock.torture;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The checker's rules for leader elections (the {@code LEADER} scenario); a pure function of the
 * records, called by {@link HistoryChecker}. Only <em>definite</em> violations count: a yes answer says
 * the process was leader at some instant between the times taken before and after the call, nothing
 * more; and a term, once lost, never answers yes again (isLeader() never comes back for one grant), so
 * a term was surely leader throughout its <b>sure interval</b>, from the end of its first yes answer to
 * the start of its last one (empty when those cross).
 *
 * <ul>
 * <li><b>Double leader</b>: two terms whose sure intervals overlap; a yes answer of one term lying
 * wholly inside another term's sure interval (whenever it held, the other held too); or one term answered
 * yes by two processes (a term is one grant to one process). Each pair of terms counts once.</li>
 * <li><b>Term order</b>: a term answering yes surely after a larger term did (the start of its last
 * answer after the end of the larger term's first).</li>
 * <li><b>Failover</b>: from a kill's or pause's SIGSTOP (the victim was leader for the fault's token) to
 * the first sighting of a larger term: its first yes answer's end, its granted callback, or the harness's
 * poll of the lock document, whichever came first. A fault after which no larger term was seen is
 * unrecovered.</li>
 * <li><b>Told late</b> (reported, not a rule): a term revoked for a lost lease, its process neither
 * paused nor killed during it, whose revoked callback came after a larger term's first yes answer had
 * ended. The lease ends before a successor can be elected; the callback is a notification on a thread
 * of its own and may come late on a loaded machine.</li>
 * </ul>
 */
final class LeaderChecker {

    private LeaderChecker() {
    }

    /** Per term: its answers' processes and bounds. */
    private static final class Term {
        final Set<String> processes = new HashSet<>();
        long firstAfter = Long.MAX_VALUE;
        long lastBefore = Long.MIN_VALUE;

        void add(LeaderHistory.Answer answer) {
            processes.add(answer.process());
            firstAfter = Math.min(firstAfter, answer.after());
            lastBefore = Math.max(lastBefore, answer.before());
        }

        boolean surelyLeading(long from, long to) {
            return firstAfter <= from && to <= lastBefore;
        }
    }

    static CheckReport.LeaderFigures check(LeaderHistory history, List<FaultEvent> faults, Consumer<String> problems) {
        Map<Long, Term> terms = new TreeMap<>();
        Map<Long, List<LeaderHistory.Answer>> byTerm = new HashMap<>();
        for (LeaderHistory.Answer answer : history.answers()) {
            terms.computeIfAbsent(answer.term(), t -> new Term()).add(answer);
            byTerm.computeIfAbsent(answer.term(), t -> new ArrayList<>()).add(answer);
        }
        int doubleLeaders = 0;
        int termOrder = 0;
        List<Long> keys = new ArrayList<>(terms.keySet());
        for (long term : keys) {
            if (terms.get(term).processes.size() > 1) {
                doubleLeaders++;
                problems.accept("double leader: term " + term + " answered yes by " + terms.get(term).processes);
            }
        }
        for (int i = 0; i < keys.size(); i++) {
            for (int j = i + 1; j < keys.size(); j++) {
                long older = keys.get(i);
                long newer = keys.get(j);
                Term a = terms.get(older);
                Term b = terms.get(newer);
                if (definitelyOverlap(a, byTerm.get(newer)) || definitelyOverlap(b, byTerm.get(older))
                        || Math.max(a.firstAfter, b.firstAfter) < Math.min(a.lastBefore, b.lastBefore)) {
                    doubleLeaders++;
                    problems.accept("double leader: terms " + older + " " + a.processes + " [" + a.firstAfter + ", "
                            + a.lastBefore + "] and " + newer + " " + b.processes + " [" + b.firstAfter + ", " + b.lastBefore
                            + "] answered yes at overlapping times");
                }
                if (a.lastBefore > b.firstAfter) {
                    termOrder++;
                    problems.accept("term order: term " + older + " answered yes at " + a.lastBefore + ", after term "
                            + newer + " had at " + b.firstAfter);
                }
            }
        }
        Map<Long, Long> grantedAt = new HashMap<>();
        for (LeaderHistory.Notice grant : history.grants()) {
            grantedAt.merge(grant.term(), grant.at(), Math::min);
        }
        long maxKill = -1;
        long maxPause = -1;
        int failovers = 0;
        int unrecovered = 0;
        for (FaultEvent fault : faults) {
            if (fault.kind() != FaultEvent.Kind.KILL && fault.kind() != FaultEvent.Kind.PAUSE) {
                continue;
            }
            long seen = fault.recoveredAt();
            for (Map.Entry<Long, Term> term : terms.entrySet()) {
                if (term.getKey() > fault.token()) {
                    seen = Math.min(seen, term.getValue().firstAfter);
                }
            }
            for (Map.Entry<Long, Long> grant : grantedAt.entrySet()) {
                if (grant.getKey() > fault.token()) {
                    seen = Math.min(seen, grant.getValue());
                }
            }
            if (seen == FaultEvent.UNRECOVERED) {
                unrecovered++;
                problems.accept(fault + ": no later term was ever elected");
                continue;
            }
            failovers++;
            long failover = seen - fault.at();
            if (fault.kind() == FaultEvent.Kind.KILL) {
                maxKill = Math.max(maxKill, failover);
            } else {
                maxPause = Math.max(maxPause, failover);
            }
        }
        int losses = 0;
        int toldLate = 0;
        for (LeaderHistory.Notice revoked : history.revocations()) {
            boolean hitByFault = faults.stream().anyMatch(f -> (f.kind() == FaultEvent.Kind.PAUSE
                    || f.kind() == FaultEvent.Kind.KILL) && f.token() == revoked.term());
            if (!revoked.reason().equals("LEASE_LOST") || hitByFault) {
                continue;
            }
            losses++;
            long successor = terms.entrySet().stream().filter(t -> t.getKey() > revoked.term())
                    .mapToLong(t -> t.getValue().firstAfter).min().orElse(Long.MAX_VALUE);
            if (revoked.at() > successor) {
                toldLate++;
                problems.accept("(reported, not a rule) told late: " + revoked + " came after the next term's first yes answer ended at " + successor);
            }
        }
        return new CheckReport.LeaderFigures(history.answers().size(), terms.size(), doubleLeaders, termOrder, failovers,
                unrecovered, maxKill, maxPause, losses, toldLate);
    }

    /** Whether an answer of another term lies wholly inside {@code term}'s sure interval. */
    private static boolean definitelyOverlap(Term term, List<LeaderHistory.Answer> others) {
        for (LeaderHistory.Answer other : others) {
            if (term.surelyLeading(other.before(), other.after())) {
                return true;
            }
        }
        return false;
    }
}
