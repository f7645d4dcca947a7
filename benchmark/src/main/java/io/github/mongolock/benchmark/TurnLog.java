package io.github.mongolock.benchmark;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The merged history of one case-7 block: every acquire call of both workers, ordered by when it
 * returned (which is the order of the grants, see {@link TurnTaking}). Pure: built from the
 * workers' logs, it only counts.
 */
final class TurnLog {

    /**
     * One acquire call.
     *
     * @param process   the worker's label, e.g. {@code A}
     * @param atOnce    granted by the quick start's {@code tryAcquire}, without waiting
     * @param waitMicros from the call to its return (granted or timed out)
     */
    record Turn(String process, int thread, boolean granted, boolean atOnce, long returnedAt, long waitMicros) {

        /** When the call started (nanoTime). */
        long calledAt() {
            return returnedAt - waitMicros * 1_000;
        }
    }

    /**
     * The longest run of consecutive grants to callers of one process.
     *
     * @param firstReturnedAt when its first grant returned (nanoTime); {@code lastReturnedAt} its last
     */
    record Streak(String process, int length, long firstReturnedAt, long lastReturnedAt) {
    }

    private final List<Turn> turns;

    TurnLog(List<Turn> turns) {
        this.turns = new ArrayList<>(turns);
        this.turns.sort(Comparator.comparingLong(Turn::returnedAt));
    }

    /** Parses a worker's {@code turns=} value: {@code thread:g|f|t:returnNanos:waitMicros,...}. */
    static List<Turn> parse(String process, String encoded) {
        List<Turn> turns = new ArrayList<>();
        if (encoded == null || encoded.isEmpty()) {
            return turns;
        }
        for (String entry : encoded.split(",")) {
            String[] parts = entry.split(":");
            String outcome = parts[1];
            turns.add(new Turn(process, Integer.parseInt(parts[0]), !outcome.equals("t"), outcome.equals("f"),
                    Long.parseLong(parts[2]), Long.parseLong(parts[3])));
        }
        return turns;
    }

    List<Turn> grants() {
        return turns.stream().filter(Turn::granted).toList();
    }

    long grants(String process) {
        return grants().stream().filter(turn -> turn.process().equals(process)).count();
    }

    /** Grants that returned before {@code nanos}: the throughput of a block counts only its window. */
    long grantsBefore(long nanos) {
        return grants().stream().filter(turn -> turn.returnedAt() < nanos).count();
    }

    /** Grants per thread of one process, threads that got none included. */
    long[] grantsPerThread(String process, int threads) {
        long[] counts = new long[threads];
        grants().stream().filter(turn -> turn.process().equals(process)).forEach(turn -> counts[turn.thread()]++);
        return counts;
    }

    long timeouts() {
        return turns.size() - grants().size();
    }

    /** Waits of every call, timed-out ones included (their wait is what their caller went through), in ms. */
    Stats waitsMillis() {
        return new Stats(turns.stream().map(turn -> turn.waitMicros() / 1_000.0).toList());
    }

    /** Waits of one process's grants that had to wait (the quick start's tryAcquire found the lock busy), in ms. */
    Stats waitedGrantsMillis(String process) {
        return new Stats(grants().stream().filter(turn -> turn.process().equals(process) && !turn.atOnce())
                .map(turn -> turn.waitMicros() / 1_000.0).toList());
    }

    long grantsAtOnce(String process) {
        return grants().stream().filter(turn -> turn.process().equals(process) && turn.atOnce()).count();
    }

    Streak longestStreak() {
        Streak longest = new Streak("-", 0, 0, 0);
        String process = null;
        int length = 0;
        long first = 0;
        for (Turn grant : grants()) {
            if (grant.process().equals(process)) {
                length++;
            } else {
                length = 1;
                first = grant.returnedAt();
            }
            process = grant.process();
            if (length > longest.length()) {
                longest = new Streak(process, length, first, grant.returnedAt());
            }
        }
        return longest;
    }

    /**
     * Calls of the other process that were waiting from before {@code streak}'s first grant until after its last:
     * callers kept out for all of it. None means the other process was not asking then (not started yet, or
     * between calls), which no lock rule can be blamed for.
     */
    long othersWaitingThroughout(Streak streak) {
        return turns.stream().filter(turn -> !turn.process().equals(streak.process()))
                .filter(turn -> turn.calledAt() <= streak.firstReturnedAt()
                        && turn.returnedAt() >= streak.lastReturnedAt())
                .count();
    }

    /** When {@code process}'s first call started (nanoTime), or {@link Long#MAX_VALUE} when it made none. */
    long firstCallOf(String process) {
        return turns.stream().filter(turn -> turn.process().equals(process))
                .mapToLong(Turn::calledAt).min().orElse(Long.MAX_VALUE);
    }

    /** How often the lock went from a caller of one process to a caller of the other. */
    long processSwitches() {
        long switches = 0;
        String previous = null;
        for (Turn grant : grants()) {
            if (previous != null && !previous.equals(grant.process())) {
                switches++;
            }
            previous = grant.process();
        }
        return switches;
    }
}
