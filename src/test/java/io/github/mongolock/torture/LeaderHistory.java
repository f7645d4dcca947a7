package io.github.mongolock.torture;

import java.util.ArrayList;
import java.util.List;

/**
 * What the {@code LEADER} workload records (see {@link HistoryReader} for the lines). Times are
 * {@link System#nanoTime()} values, one monotonic clock for every process of the machine.
 *
 * @param answers     {@code isLeader()} asked and answered yes (through {@code Leadership.term()}), with the
 *                    time before and after the call; a worker writes the first yes of a term, then at most
 *                    one every few milliseconds and the last one before a no, so no yes interval is
 *                    widened and at most the last milliseconds before a kill are missing
 * @param grants      {@code granted(term)} delivered to the worker's listener
 * @param revocations {@code revoked(term, reason)} delivered to it
 */
record LeaderHistory(List<Answer> answers, List<Notice> grants, List<Notice> revocations) {

    static final LeaderHistory NONE = new LeaderHistory(List.of(), List.of(), List.of());

    LeaderHistory {
        answers = List.copyOf(answers);
        grants = List.copyOf(grants);
        revocations = List.copyOf(revocations);
    }

    /** A yes: {@code process} was leader for {@code term} at some instant between {@code before} and {@code after}. */
    record Answer(String process, long term, long before, long after) {
    }

    /** A listener call; {@code reason} is empty for a grant. */
    record Notice(String process, long term, String reason, long at) {
    }

    static LeaderHistory merge(List<LeaderHistory> histories) {
        List<Answer> answers = new ArrayList<>();
        List<Notice> grants = new ArrayList<>();
        List<Notice> revocations = new ArrayList<>();
        for (LeaderHistory history : histories) {
            answers.addAll(history.answers());
            grants.addAll(history.grants());
            revocations.addAll(history.revocations());
        }
        return new LeaderHistory(answers, grants, revocations);
    }
}
