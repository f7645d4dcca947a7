package io.github.mongolock.benchmark;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Order statistics of a small sample (nearest rank: with n samples, p99 is the max when n < 100). */
final class Stats {

    private final List<Double> sorted;

    Stats(List<Double> values) {
        this.sorted = new ArrayList<>(values);
        Collections.sort(sorted);
    }

    int count() {
        return sorted.size();
    }

    double percentile(double p) {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.min(Math.max(rank, 1), sorted.size()) - 1);
    }

    double median() {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    double min() {
        return sorted.isEmpty() ? Double.NaN : sorted.get(0);
    }

    double max() {
        return sorted.isEmpty() ? Double.NaN : sorted.get(sorted.size() - 1);
    }

    static String format(double value, int decimals) {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
