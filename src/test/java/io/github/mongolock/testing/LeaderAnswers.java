package io.github.mongolock.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The leader-election tests' rule on sampled answers, as the torture's checker applies it: each "yes"
 * ({@code term()} present) is recorded with the monotonic time before and after the call; a term was
 * surely leader from its first yes's end to its last yes's start, and no two terms' such intervals may
 * overlap. Not thread-safe: one sampling thread records, the test reads after stopping it.
 */
public final class LeaderAnswers {

    /** Per term: the end of its first yes answer and the start of its last. */
    private final Map<Long, long[]> terms = new TreeMap<>();
    private long yes;

    /** One answer, asked between {@code before} and {@code after} (System.nanoTime). */
    public void record(OptionalLong term, long before, long after) {
        if (term.isPresent()) {
            yes++;
            terms.merge(term.getAsLong(), new long[] {after, before},
                    (was, now) -> new long[] {Math.min(was[0], now[0]), Math.max(was[1], now[1])});
        }
    }

    public long yesAnswers() {
        return yes;
    }

    /** Pairs of terms whose sure intervals overlap ("terms 1 and 2"); empty when none do. */
    public List<String> overlaps() {
        List<Map.Entry<Long, long[]>> list = new ArrayList<>(terms.entrySet());
        List<String> overlaps = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            for (int j = i + 1; j < list.size(); j++) {
                long[] x = list.get(i).getValue();
                long[] y = list.get(j).getValue();
                if (x[0] < y[1] && y[0] < x[1]) {
                    overlaps.add("terms " + list.get(i).getKey() + " and " + list.get(j).getKey());
                }
            }
        }
        return overlaps;
    }
}
