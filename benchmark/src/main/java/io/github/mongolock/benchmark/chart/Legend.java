package io.github.mongolock.benchmark.chart;

import java.util.List;

/**
 * A row of legend entries, each a swatch and a label, wrapped onto further rows when wider than
 * the room given. Immutable.
 */
public final class Legend {

    /** What an entry's swatch looks like. */
    enum Swatch { BOX, MARKER, LINE, DASHED_LINE }

    /** One entry; build it with {@link #box}, {@link #marker} or {@link #line}. */
    public record Entry(String label, Swatch swatch, String colour, Marker marker) {
    }

    private static final TextStyle LABEL = TextStyle.of(12).coloured(Palette.TEXT);
    private static final double SWATCH_WIDTH = 22;
    private static final double ROW_HEIGHT = 20;
    private static final double GAP = 18;

    private final List<Entry> entries;

    public Legend(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    public static Entry box(String label, String colour) {
        return new Entry(label, Swatch.BOX, colour, null);
    }

    public static Entry marker(String label, String colour, Marker marker) {
        return new Entry(label, Swatch.MARKER, colour, marker);
    }

    public static Entry line(String label, String colour, boolean dashed) {
        return new Entry(label, dashed ? Swatch.DASHED_LINE : Swatch.LINE, colour, null);
    }

    private static double entryWidth(Entry entry) {
        return SWATCH_WIDTH + 6 + TextMetrics.width(entry.label(), LABEL);
    }

    /** Height the legend takes when drawn within {@code maxWidth}. */
    double height(double maxWidth) {
        return entries.isEmpty() ? 0 : draw(null, 0, 0, maxWidth);
    }

    /** Draws from (left, top); returns the height used. With a null canvas it only measures. */
    double draw(SvgCanvas canvas, double left, double top, double maxWidth) {
        if (entries.isEmpty()) {
            return 0;
        }
        double x = left;
        double rowTop = top;
        for (Entry entry : entries) {
            double w = entryWidth(entry);
            if (x > left && x + w > left + maxWidth) {
                x = left;
                rowTop += ROW_HEIGHT;
            }
            if (canvas != null) {
                drawSwatch(canvas, entry, x, rowTop + ROW_HEIGHT / 2);
                canvas.text(x + SWATCH_WIDTH + 6, rowTop + ROW_HEIGHT / 2 + 4, entry.label(), LABEL);
            }
            x += w + GAP;
        }
        return rowTop - top + ROW_HEIGHT;
    }

    private static void drawSwatch(SvgCanvas canvas, Entry entry, double x, double middle) {
        switch (entry.swatch()) {
            case BOX -> canvas.rect(x + 3, middle - 7, SWATCH_WIDTH - 6, 14, entry.colour());
            case MARKER -> entry.marker().draw(canvas, x + SWATCH_WIDTH / 2, middle, 5, entry.colour(), 0.55);
            case LINE -> canvas.line(x, middle, x + SWATCH_WIDTH, middle, entry.colour(), 2.5);
            case DASHED_LINE -> canvas.line(x, middle, x + SWATCH_WIDTH, middle, entry.colour(), 1.5, true);
        }
    }
}
