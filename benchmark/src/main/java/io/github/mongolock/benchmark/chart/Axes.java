package io.github.mongolock.benchmark.chart;

/** Draws an axis along a plot area's bottom or left edge: grid lines, tick marks, tick labels and the axis title. */
final class Axes {

    static final TextStyle TICK = TextStyle.of(12).coloured(Palette.MUTED);
    static final TextStyle TITLE = TextStyle.of(12.5).coloured(Palette.TEXT);
    /** Room a bottom axis takes below the plot area: tick labels, then its title. */
    static final double BOTTOM_HEIGHT = 44;

    private Axes() {
    }

    /**
     * The axis line along the area's bottom, ticks and labels under it, the title under those; no
     * grid (see {@link #verticalGrid}), so charts with headings between their rows can keep the
     * grid off the headings.
     */
    static void bottom(SvgCanvas canvas, Scale x, PlotArea area, String title) {
        canvas.line(area.left(), area.bottom(), area.right(), area.bottom(), Palette.AXIS, 1);
        for (double tick : x.ticks()) {
            double px = x.pixel(tick);
            canvas.line(px, area.bottom(), px, area.bottom() + 5, Palette.AXIS, 1);
            canvas.text(px, area.bottom() + 18, x.tickLabel(tick), TICK.anchored(TextStyle.Anchor.MIDDLE));
        }
        canvas.text((area.left() + area.right()) / 2, area.bottom() + 38, title, TITLE.anchored(TextStyle.Anchor.MIDDLE));
    }

    /** Vertical grid lines from {@code top} to {@code bottom}: under a block of rows, or the whole plot. */
    static void verticalGrid(SvgCanvas canvas, Scale x, double top, double bottom) {
        for (double tick : x.minorTicks()) {
            canvas.line(x.pixel(tick), top, x.pixel(tick), bottom, Palette.GRID, 0.6, true);
        }
        for (double tick : x.ticks()) {
            canvas.line(x.pixel(tick), top, x.pixel(tick), bottom, Palette.GRID, 1);
        }
    }

    /** Horizontal grid lines, ticks and labels left of the area, the title turned upright at the canvas's left edge. */
    static void left(SvgCanvas canvas, Scale y, PlotArea area, String title, double titleX) {
        for (double tick : y.ticks()) {
            double py = y.pixel(tick);
            canvas.line(area.left(), py, area.right(), py, Palette.GRID, 1);
            canvas.line(area.left() - 5, py, area.left(), py, Palette.AXIS, 1);
            canvas.text(area.left() - 8, py + 4, y.tickLabel(tick), TICK.anchored(TextStyle.Anchor.END));
        }
        canvas.line(area.left(), area.top(), area.left(), area.bottom(), Palette.AXIS, 1);
        canvas.text(titleX, (area.top() + area.bottom()) / 2, title, TITLE.anchored(TextStyle.Anchor.MIDDLE).rotated(-90));
    }

    /** Widest tick label of a left axis, to size the margin. */
    static double leftLabelWidth(Scale y) {
        return y.ticks().stream().mapToDouble(tick -> TextMetrics.width(y.tickLabel(tick), TICK)).max().orElse(0);
    }
}
