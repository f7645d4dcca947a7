package io.github.mongolock.torture;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Maps a window of {@link System#nanoTime()} onto a plot's x range, and names times as seconds since the
 * scenario started ({@code origin}), the way the timeline's axis and hover texts show them.
 */
final class TimeAxis {

    private final long origin;
    private final long from;
    private final long to;
    private final double left;
    private final double right;

    TimeAxis(long origin, long from, long to, double left, double right) {
        this.origin = origin;
        this.from = from;
        this.to = Math.max(to, from + 1);
        this.left = left;
        this.right = right;
    }

    long from() {
        return from;
    }

    long to() {
        return to;
    }

    /** Where {@code nanos} is drawn; times outside the window are drawn at its edge. */
    double x(long nanos) {
        long clamped = Math.max(from, Math.min(to, nanos));
        return left + (double) (clamped - from) / (to - from) * (right - left);
    }

    double width(long start, long end) {
        return x(end) - x(start);
    }

    /** Whether anything of {@code start..end} falls into the window. */
    boolean shows(long start, long end) {
        return end >= from && start <= to;
    }

    /** Seconds since the scenario started at 1, 2 or 5 times a power of ten, about a dozen of them in the window. */
    List<Double> ticks() {
        double first = (from - origin) / 1e9;
        double last = (to - origin) / 1e9;
        double rough = (last - first) / 12;
        double power = Math.pow(10, Math.floor(Math.log10(rough)));
        double step = rough <= power ? power : rough <= 2 * power ? 2 * power : rough <= 5 * power ? 5 * power : 10 * power;
        List<Double> ticks = new ArrayList<>();
        for (long i = (long) Math.ceil(first / step - 1e-9); i * step <= last + 1e-9; i++) {
            ticks.add(i * step);
        }
        return ticks;
    }

    /** Where the tick at {@code seconds} is drawn. */
    double tickX(double seconds) {
        return x(origin + (long) (seconds * 1e9));
    }

    /** Seconds since the scenario started, to the millisecond: what the hover texts say. */
    String seconds(long nanos) {
        return seconds(nanos, 3);
    }

    String seconds(long nanos, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", (nanos - origin) / 1e9);
    }

    /** "1.600 to 2.000 s (400 ms)". */
    String span(long start, long end) {
        return seconds(start) + " to " + seconds(end) + " s (" + Math.round((end - start) / 1e6) + " ms)";
    }
}
