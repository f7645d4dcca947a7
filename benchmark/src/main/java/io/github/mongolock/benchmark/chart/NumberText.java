package io.github.mongolock.benchmark.chart;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/** Numbers as a reader wants them on a chart: no trailing zeros, no exponent, at most 3 significant decimals. */
public final class NumberText {

    private NumberText() {
    }

    public static String of(double value) {
        if (!Double.isFinite(value)) {
            return "n/a";
        }
        if (Math.abs(value - Math.rint(value)) < 1e-9) {
            return String.format(Locale.ROOT, "%d", (long) Math.rint(value));
        }
        String text = new BigDecimal(value).round(new MathContext(3)).stripTrailingZeros().toPlainString();
        return text.equals("-0") ? "0" : text;
    }

    /** {@code value} with exactly {@code decimals} decimals, as the report's tables print it. */
    public static String fixed(double value, int decimals) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%." + decimals + "f", value) : "n/a";
    }
}
