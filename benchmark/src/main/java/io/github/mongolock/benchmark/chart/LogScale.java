package io.github.mongolock.benchmark.chart;

import java.util.ArrayList;
import java.util.List;

/**
 * A logarithmic axis for positive data spanning decades, such as latencies with a long tail: the
 * domain runs from the 1-2-5 step at or below the smallest value to the one at or above the
 * largest. Ticks are labelled at 1, 2 and 5 times each power of ten when a decade is wide enough
 * for the labels, else at the powers of ten only, with 2 and 5 as unlabelled grid lines.
 */
public final class LogScale implements Scale {

    /** Below this many pixels per decade, 1-2-5 labels would crowd each other. */
    private static final double PIXELS_FOR_1_2_5_LABELS = 125;

    private final double min;
    private final double max;
    private final double pixelAtMin;
    private final double pixelAtMax;

    public LogScale(double dataMin, double dataMax, double pixelAtMin, double pixelAtMax) {
        if (!(dataMin > 0) || !(dataMax > 0)) {
            throw new IllegalArgumentException("a log scale needs positive data, got " + dataMin + " to " + dataMax);
        }
        this.min = stepAtOrBelow(dataMin);
        double top = stepAtOrAbove(dataMax);
        this.max = top > min ? top : stepAtOrAbove(min * 1.5);
        this.pixelAtMin = pixelAtMin;
        this.pixelAtMax = pixelAtMax;
    }

    private static double stepAtOrBelow(double value) {
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double factor : new double[] {5, 2, 1}) {
            if (factor * power <= value * (1 + 1e-9)) {
                return factor * power;
            }
        }
        return power;
    }

    private static double stepAtOrAbove(double value) {
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double factor : new double[] {1, 2, 5, 10}) {
            if (factor * power >= value * (1 - 1e-9)) {
                return factor * power;
            }
        }
        return 10 * power;
    }

    @Override
    public double pixel(double value) {
        double clamped = Math.max(min, Math.min(max, value));
        return pixelAtMin + Math.log(clamped / min) / Math.log(max / min) * (pixelAtMax - pixelAtMin);
    }

    private boolean labelsEveryStep() {
        double decades = Math.log10(max / min);
        return Math.abs(pixelAtMax - pixelAtMin) / decades >= PIXELS_FOR_1_2_5_LABELS;
    }

    private List<Double> steps() {
        List<Double> steps = new ArrayList<>();
        for (double power = Math.pow(10, Math.floor(Math.log10(min))); power <= max; power *= 10) {
            for (double factor : new double[] {1, 2, 5}) {
                double value = factor * power;
                if (value >= min * (1 - 1e-9) && value <= max * (1 + 1e-9)) {
                    steps.add(value);
                }
            }
        }
        return steps;
    }

    private static boolean powerOfTen(double value) {
        double exponent = Math.log10(value);
        return Math.abs(exponent - Math.rint(exponent)) < 1e-9;
    }

    @Override
    public List<Double> ticks() {
        List<Double> steps = steps();
        if (labelsEveryStep()) {
            return steps;
        }
        List<Double> ticks = new ArrayList<>();
        for (double step : steps) {
            // The domain's ends are labelled too, so the reader sees where the axis starts and stops.
            if (powerOfTen(step) || step == steps.get(0) || step == steps.get(steps.size() - 1)) {
                ticks.add(step);
            }
        }
        return ticks;
    }

    @Override
    public List<Double> minorTicks() {
        List<Double> ticks = ticks();
        return steps().stream().filter(step -> !ticks.contains(step)).toList();
    }

    @Override
    public String tickLabel(double value) {
        return NumberText.of(value);
    }
}
