package io.github.mongolock.benchmark.chart;

import java.util.List;

/** Maps data values to pixels along one axis and says where that axis's ticks go. */
public interface Scale {

    /** The pixel of {@code value}; values outside the domain are clamped to its ends. */
    double pixel(double value);

    /** Values that get a tick, a label and a grid line. */
    List<Double> ticks();

    /** Values that get only a faint grid line (e.g. 2 and 5 within a decade of a log scale). */
    List<Double> minorTicks();

    String tickLabel(double value);
}
