package io.github.mongolock.benchmark.chart;

import java.util.ArrayList;
import java.util.List;

/**
 * A linear axis from 0 (or below, for negative data) to the data's maximum rounded up to a tick,
 * with ticks at 1, 2, 2.5 or 5 times a power of ten, about {@code targetTicks} of them. Starting
 * at 0 keeps bar lengths proportional to their values.
 */
public final class LinearScale implements Scale {

    private final double min;
    private final double max;
    private final double step;
    private final double pixelAtMin;
    private final double pixelAtMax;

    public LinearScale(double dataMin, double dataMax, double pixelAtMin, double pixelAtMax, int targetTicks) {
        double low = Math.min(0, dataMin);
        double high = Math.max(dataMax, low + 1e-9);
        this.step = niceStep((high - low) / Math.max(targetTicks, 1));
        this.min = Math.floor(low / step) * step;
        this.max = Math.ceil(high / step - 1e-9) * step;
        this.pixelAtMin = pixelAtMin;
        this.pixelAtMax = pixelAtMax;
    }

    static double niceStep(double rough) {
        double power = Math.pow(10, Math.floor(Math.log10(rough)));
        for (double factor : new double[] {1, 2, 2.5, 5, 10}) {
            if (factor * power >= rough) {
                return factor * power;
            }
        }
        return 10 * power;
    }

    @Override
    public double pixel(double value) {
        double clamped = Math.max(min, Math.min(max, value));
        return pixelAtMin + (clamped - min) / (max - min) * (pixelAtMax - pixelAtMin);
    }

    @Override
    public List<Double> ticks() {
        List<Double> ticks = new ArrayList<>();
        for (long i = 0; min + i * step <= max + step / 1e6; i++) {
            ticks.add(min + i * step);
        }
        return ticks;
    }

    @Override
    public List<Double> minorTicks() {
        return List.of();
    }

    @Override
    public String tickLabel(double value) {
        return NumberText.of(value);
    }

    public double max() {
        return max;
    }
}
