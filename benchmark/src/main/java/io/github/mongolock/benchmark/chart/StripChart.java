package io.github.mongolock.benchmark.chart;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A distribution per row, every sample one point: rows in groups, points spread up and down within
 * their row so equal values do not hide each other, a mark (e.g. the median) across each row, and
 * a summary text per row in a column at the right. For small samples (tens of points) this shows
 * what a box plot hides: clusters, gaps and each outlier. Not thread-safe; build, then render once.
 */
public final class StripChart {

    /** How one series' points look: the same series may appear in several rows (e.g. one per group). */
    public record Series(String name, String colour, Marker marker) {
    }

    /**
     * @param group   rows with the same group are drawn together under that heading, in the order first seen
     * @param mark    where the row's mark goes (e.g. its p50), in data units
     * @param summary text for the row's summary column, e.g. {@code 8.6 / 25.9}
     */
    public record Row(String group, String label, Series series, List<Double> values, double mark, String summary) {

        public Row {
            values = List.copyOf(values);
        }
    }

    private static final TextStyle ROW_LABEL = TextStyle.of(12.5);
    private static final TextStyle GROUP = TextStyle.of(12.5).bolded();
    private static final TextStyle SUMMARY = TextStyle.of(12).anchored(TextStyle.Anchor.END);
    private static final double ROW_HEIGHT = 30;
    private static final double GROUP_HEIGHT = 24;
    private static final double POINT_RADIUS = 4;
    /** Spreads successive points (by rank) over the row: consecutive values land far apart vertically. */
    private static final double GOLDEN = 0.6180339887498949;

    private final ChartTitles titles;
    private final String axisTitle;
    private final boolean logarithmic;
    private final String markLabel;
    private final String summaryHeader;
    private final List<Row> rows = new ArrayList<>();

    /**
     * @param markLabel     the legend's words for the mark, e.g. {@code p50 (median)}
     * @param summaryHeader the summary column's heading, e.g. {@code p50 / p99, ms}
     */
    public StripChart(ChartTitles titles, String axisTitle, boolean logarithmic, String markLabel, String summaryHeader) {
        this.titles = titles;
        this.axisTitle = axisTitle;
        this.logarithmic = logarithmic;
        this.markLabel = markLabel;
        this.summaryHeader = summaryHeader;
    }

    public StripChart row(Row row) {
        rows.add(row);
        return this;
    }

    public String render(int width) {
        if (rows.isEmpty()) {
            throw new IllegalStateException("a strip chart needs at least one row: " + titles.title());
        }
        Map<String, List<Row>> groups = new LinkedHashMap<>();
        rows.forEach(row -> groups.computeIfAbsent(row.group(), g -> new ArrayList<>()).add(row));
        Map<String, Series> series = new LinkedHashMap<>();
        rows.forEach(row -> series.putIfAbsent(row.series().name(), row.series()));
        List<Legend.Entry> entries = new ArrayList<>();
        series.values().forEach(s -> entries.add(Legend.marker(s.name(), s.colour(), s.marker())));
        entries.add(Legend.line(markLabel, Palette.REFERENCE, false));
        Legend legend = new Legend(entries);

        double margin = ChartTitles.MARGIN;
        double indent = 12;
        double labelWidth = rows.stream().mapToDouble(row -> TextMetrics.width(row.label(), ROW_LABEL)).max().orElse(0);
        double summaryWidth = Math.max(TextMetrics.width(summaryHeader, SUMMARY.bolded()),
                rows.stream().mapToDouble(row -> TextMetrics.width(row.summary(), SUMMARY)).max().orElse(0));
        double header = titles.headerHeight(width);
        double legendTop = header;
        double plotTop = legendTop + legend.height(width - 2 * margin) + 8;
        double plotHeight = groups.size() * GROUP_HEIGHT + rows.size() * ROW_HEIGHT;
        double plotBottom = plotTop + plotHeight;
        int height = (int) Math.ceil(plotBottom + Axes.BOTTOM_HEIGHT + titles.footerHeight(width));
        PlotArea area = new PlotArea(margin + indent + labelWidth + 14, plotTop, width - margin - summaryWidth - 18,
                plotBottom);

        List<Double> all = rows.stream().flatMap(row -> row.values().stream()).toList();
        Scale x = scale(all, area);
        SvgCanvas canvas = new SvgCanvas(width, height, titles.title());
        titles.draw(canvas);
        legend.draw(canvas, margin, legendTop, width - 2 * margin);

        double y = plotTop;
        boolean first = true;
        for (Map.Entry<String, List<Row>> group : groups.entrySet()) {
            canvas.text(margin, y + 17, group.getKey(), GROUP);
            if (first) {
                canvas.text(width - margin, y + 17, summaryHeader, SUMMARY.bolded());
                first = false;
            }
            y += GROUP_HEIGHT;
            int index = 0;
            for (Row row : group.getValue()) {
                drawRow(canvas, x, area, row, y, index++ % 2 == 0);
                canvas.text(margin + indent, y + ROW_HEIGHT / 2 + 4.5, row.label(), ROW_LABEL);
                canvas.text(width - margin, y + ROW_HEIGHT / 2 + 4.5, row.summary(), SUMMARY);
                y += ROW_HEIGHT;
            }
        }
        Axes.bottom(canvas, x, area, axisTitle);
        return canvas.render();
    }

    private Scale scale(List<Double> values, PlotArea area) {
        if (logarithmic) {
            double min = values.stream().filter(v -> v > 0).mapToDouble(Double::doubleValue).min().orElse(1);
            double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(min);
            return new LogScale(min, Math.max(max, min), area.left(), area.right());
        }
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(1);
        double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(0);
        return new LinearScale(min, max, area.left(), area.right(), 8);
    }

    private static void drawRow(SvgCanvas canvas, Scale x, PlotArea area, Row row, double top, boolean shaded) {
        if (shaded) {
            canvas.rect(area.left(), top, area.width(), ROW_HEIGHT, "#f5f5f5");
        }
        Axes.verticalGrid(canvas, x, top, top + ROW_HEIGHT);
        double middle = top + ROW_HEIGHT / 2;
        double spread = ROW_HEIGHT / 2 - POINT_RADIUS - 3;
        List<Double> sorted = new ArrayList<>(row.values());
        sorted.sort(Double::compare);
        for (int rank = 0; rank < sorted.size(); rank++) {
            double offset = ((rank * GOLDEN) % 1.0 - 0.5) * 2 * spread;
            row.series().marker().draw(canvas, x.pixel(sorted.get(rank)), middle + offset, POINT_RADIUS,
                    row.series().colour(), 0.45);
        }
        if (Double.isFinite(row.mark())) {
            double px = x.pixel(row.mark());
            canvas.line(px, top + 2, px, top + ROW_HEIGHT - 2, Palette.REFERENCE, 2.5);
        }
    }
}
