package io.github.mongolock.benchmark.chart;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Horizontal bars, one per row, each split into segments by category (e.g. commands by kind),
 * rows in groups under a heading, the bar's total and a note written after its end, and vertical
 * dashed reference lines explained in the legend. The axis starts at 0, so lengths compare. Not
 * thread-safe; build, then render once.
 */
public final class StackedBarChart {

    /** A kind of segment, in the order segments are stacked and listed in the legend. */
    public record Category(String name, String colour) {
    }

    /**
     * @param group    rows with the same group are drawn together under that heading, in the order first seen
     * @param segments value per category name; names not among the chart's categories are refused
     * @param note     written after the bar's total, e.g. {@code + 2.2 getMore}; empty for none
     */
    public record Row(String group, String label, Map<String, Double> segments, String note) {

        public Row {
            segments = Map.copyOf(segments);
        }

        double total() {
            return segments.values().stream().mapToDouble(Double::doubleValue).sum();
        }
    }

    public record Reference(double value, String legend) {
    }

    private static final TextStyle ROW_LABEL = TextStyle.of(12.5);
    private static final TextStyle GROUP = TextStyle.of(12.5).bolded();
    private static final TextStyle TOTAL = TextStyle.of(12).bolded();
    private static final TextStyle NOTE = TextStyle.of(11.5).coloured(Palette.MUTED);
    private static final double ROW_HEIGHT = 24;
    private static final double BAR_HEIGHT = 16;
    private static final double GROUP_HEIGHT = 26;

    private final ChartTitles titles;
    private final String axisTitle;
    private final List<Category> categories;
    private final List<Row> rows = new ArrayList<>();
    private final List<Reference> references = new ArrayList<>();

    public StackedBarChart(ChartTitles titles, String axisTitle, List<Category> categories) {
        this.titles = titles;
        this.axisTitle = axisTitle;
        this.categories = List.copyOf(categories);
    }

    public StackedBarChart row(Row row) {
        for (String name : row.segments().keySet()) {
            if (categories.stream().noneMatch(category -> category.name().equals(name))) {
                throw new IllegalArgumentException(row.label() + ": segment " + name + " is not a category of the chart "
                        + categories.stream().map(Category::name).toList());
            }
        }
        rows.add(row);
        return this;
    }

    public StackedBarChart reference(Reference reference) {
        references.add(reference);
        return this;
    }

    private static String totalText(Row row) {
        return NumberText.fixed(row.total(), 2);
    }

    public String render(int width) {
        if (rows.isEmpty()) {
            throw new IllegalStateException("a bar chart needs at least one row: " + titles.title());
        }
        Map<String, List<Row>> groups = new LinkedHashMap<>();
        rows.forEach(row -> groups.computeIfAbsent(row.group(), g -> new ArrayList<>()).add(row));
        List<Legend.Entry> entries = new ArrayList<>();
        // Only categories that show in some row (at least 0.005, what the totals' two decimals print): a
        // legend entry for a sliver nobody can see would send the reader looking for it.
        categories.stream().filter(c -> rows.stream().anyMatch(r -> r.segments().getOrDefault(c.name(), 0.0) >= 0.005))
                .forEach(c -> entries.add(Legend.box(c.name(), c.colour())));
        references.forEach(r -> entries.add(Legend.line(r.legend(), Palette.REFERENCE, true)));
        Legend legend = new Legend(entries);

        double margin = ChartTitles.MARGIN;
        double indent = 12;
        double labelWidth = rows.stream().mapToDouble(row -> TextMetrics.width(row.label(), ROW_LABEL)).max().orElse(0);
        double endWidth = rows.stream().mapToDouble(row -> TextMetrics.width(totalText(row), TOTAL) + 6
                + (row.note().isEmpty() ? 0 : TextMetrics.width(row.note(), NOTE))).max().orElse(0);
        double legendTop = titles.headerHeight(width);
        double plotTop = legendTop + legend.height(width - 2 * margin) + 8;
        double plotBottom = plotTop + groups.size() * GROUP_HEIGHT + rows.size() * ROW_HEIGHT + 4;
        int height = (int) Math.ceil(plotBottom + Axes.BOTTOM_HEIGHT + titles.footerHeight(width));
        PlotArea area = new PlotArea(margin + indent + labelWidth + 12, plotTop, width - margin - endWidth - 10, plotBottom);
        double max = Math.max(rows.stream().mapToDouble(Row::total).max().orElse(1),
                references.stream().mapToDouble(Reference::value).max().orElse(0));
        LinearScale x = new LinearScale(0, max, area.left(), area.right(), 8);

        SvgCanvas canvas = new SvgCanvas(width, height, titles.title());
        titles.draw(canvas);
        legend.draw(canvas, margin, legendTop, width - 2 * margin);
        Axes.bottom(canvas, x, area, axisTitle);

        double y = plotTop;
        for (Map.Entry<String, List<Row>> group : groups.entrySet()) {
            canvas.text(margin, y + 18, group.getKey(), GROUP);
            y += GROUP_HEIGHT;
            // Grid and reference lines span this group's rows only, so the headings stay clear of them
            // (the 4 px reach the axis under the last group).
            double blockTop = y;
            double blockBottom = y + group.getValue().size() * ROW_HEIGHT + 4;
            Axes.verticalGrid(canvas, x, blockTop, blockBottom);
            for (Row row : group.getValue()) {
                double barTop = y + (ROW_HEIGHT - BAR_HEIGHT) / 2;
                double start = 0;
                for (Category category : categories) {
                    double value = row.segments().getOrDefault(category.name(), 0.0);
                    if (value > 0) {
                        double from = x.pixel(start);
                        double to = x.pixel(start + value);
                        canvas.rect(from, barTop, to - from, BAR_HEIGHT, category.colour(), "#ffffff");
                        start += value;
                    }
                }
                double baseline = y + ROW_HEIGHT / 2 + 4.5;
                canvas.text(margin + indent, baseline, row.label(), ROW_LABEL);
                double end = x.pixel(row.total()) + 6;
                canvas.text(end, baseline, totalText(row), TOTAL);
                if (!row.note().isEmpty()) {
                    canvas.text(end + TextMetrics.width(totalText(row), TOTAL) + 6, baseline, row.note(), NOTE);
                }
                y += ROW_HEIGHT;
            }
            // Over the bars: where the reference falls within a longer bar is the point of it.
            for (Reference reference : references) {
                double px = x.pixel(reference.value());
                canvas.line(px, blockTop, px, blockBottom, Palette.REFERENCE, 1.5, true);
            }
        }
        return canvas.render();
    }
}
