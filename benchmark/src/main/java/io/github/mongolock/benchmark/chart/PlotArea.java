package io.github.mongolock.benchmark.chart;

/** The rectangle data is drawn in, in canvas pixels; axes and labels go around it. */
record PlotArea(double left, double top, double right, double bottom) {

    PlotArea {
        if (right <= left || bottom <= top) {
            throw new IllegalArgumentException("no room left to plot in: " + left + "," + top + " to " + right + "," + bottom
                    + " (labels too wide or too many rows for the size)");
        }
    }

    double width() {
        return right - left;
    }

    double height() {
        return bottom - top;
    }
}
