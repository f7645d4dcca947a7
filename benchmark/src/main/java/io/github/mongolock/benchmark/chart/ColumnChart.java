package io.github.mongolock.benchmark.chart;

import java.util.ArrayList;
import java.util.List;

/**
 * Vertical columns in groups, one colour per group (e.g. the threads of one process), each
 * column's value printed inside it at its foot, and horizontal dashed reference lines (e.g. a fair
 * share) labelled at their right end and in the legend. Values sit at the foot, not on top,
 * because the columns of interest end near a reference line, which would run through them. The value axis starts at 0, so heights compare.
 * Not thread-safe; build, then render once.
 */
public final class ColumnChart {

    /**
     * @param name    under the group's columns, e.g. {@code worker A}
     * @param detail  after the name in the legend, e.g. {@code 356 grants, 50.9 %}
     * @param columns one label per column, e.g. thread numbers
     */
    public record Group(String name, String detail, String colour, List<String> columns, List<Double> values) {

        public Group {
            if (columns.size() != values.size()) {
                throw new IllegalArgumentException(name + ": " + columns.size() + " column labels for " + values.size() + " values");
            }
            columns = List.copyOf(columns);
            values = List.copyOf(values);
        }
    }

    /**
     * @param shortLabel at the line's right end, e.g. {@code fair 43.8}
     * @param legend     in the legend, what the line means
     */
    public record Reference(double value, String shortLabel, String legend) {
    }

    /** A column's value, printed once all lines are drawn. */
    private record ValueLabel(double x, double y, String text, TextStyle style) {
    }

    private static final TextStyle VALUE = TextStyle.of(11).anchored(TextStyle.Anchor.MIDDLE);
    /** A column shorter than this has its value above it, with a halo in case a line crosses there. */
    private static final double ROOM_FOR_VALUE = 20;
    private static final TextStyle COLUMN = TextStyle.of(11.5).coloured(Palette.MUTED).anchored(TextStyle.Anchor.MIDDLE);
    private static final TextStyle GROUP = TextStyle.of(12.5).bolded().anchored(TextStyle.Anchor.MIDDLE);
    private static final TextStyle REFERENCE = TextStyle.of(11.5).coloured(Palette.REFERENCE);

    private final ChartTitles titles;
    private final String xTitle;
    private final String yTitle;
    private final List<Group> groups = new ArrayList<>();
    private final List<Reference> references = new ArrayList<>();

    public ColumnChart(ChartTitles titles, String xTitle, String yTitle) {
        this.titles = titles;
        this.xTitle = xTitle;
        this.yTitle = yTitle;
    }

    public ColumnChart group(Group group) {
        groups.add(group);
        return this;
    }

    public ColumnChart reference(Reference reference) {
        references.add(reference);
        return this;
    }

    public String render(int width, int plotHeight) {
        if (groups.isEmpty()) {
            throw new IllegalStateException("a column chart needs at least one group: " + titles.title());
        }
        List<Legend.Entry> entries = new ArrayList<>();
        groups.forEach(g -> entries.add(Legend.box(g.name() + (g.detail().isEmpty() ? "" : ": " + g.detail()), g.colour())));
        references.forEach(r -> entries.add(Legend.line(r.legend(), Palette.REFERENCE, true)));
        Legend legend = new Legend(entries);
        double margin = ChartTitles.MARGIN;
        double legendTop = titles.headerHeight(width);
        double plotTop = legendTop + legend.height(width - 2 * margin) + 14;
        double dataMax = groups.stream().flatMap(g -> g.values().stream()).mapToDouble(Double::doubleValue).max().orElse(1);
        double referenceMax = references.stream().mapToDouble(Reference::value).max().orElse(0);
        // The domain and with it the tick labels' width depend only on the data, not on pixels.
        LinearScale probe = new LinearScale(0, Math.max(dataMax, referenceMax) * 1.06, 0, 1, 6);
        double leftLabels = Axes.leftLabelWidth(probe);
        double rightLabels = references.stream().mapToDouble(r -> TextMetrics.width(r.shortLabel(), REFERENCE)).max().orElse(0);
        double groupLabels = 22;
        double plotBottom = plotTop + plotHeight;
        int height = (int) Math.ceil(plotBottom + 18 + groupLabels + 24 + titles.footerHeight(width));
        PlotArea area = new PlotArea(margin + 22 + leftLabels + 10, plotTop, width - margin - rightLabels - 8, plotBottom);
        LinearScale y = new LinearScale(0, Math.max(dataMax, referenceMax) * 1.06, area.bottom(), area.top(), 6);

        SvgCanvas canvas = new SvgCanvas(width, height, titles.title());
        titles.draw(canvas);
        legend.draw(canvas, margin, legendTop, width - 2 * margin);
        Axes.left(canvas, y, area, yTitle, margin + 6);

        int columns = groups.stream().mapToInt(g -> g.values().size()).sum();
        double slot = area.width() / (columns + groups.size() - 1 + 0.5);
        double barWidth = slot * 0.72;
        double x = area.left() + slot * 0.25;
        List<ValueLabel> valueLabels = new ArrayList<>();
        for (Group group : groups) {
            double groupStart = x;
            for (int i = 0; i < group.values().size(); i++) {
                double value = group.values().get(i);
                double top = y.pixel(value);
                double centre = x + slot / 2;
                canvas.rect(centre - barWidth / 2, top, barWidth, area.bottom() - top, group.colour());
                canvas.text(centre, area.bottom() + 16, group.columns().get(i), COLUMN);
                String text = NumberText.of(value);
                valueLabels.add(area.bottom() - top >= ROOM_FOR_VALUE
                        ? new ValueLabel(centre, area.bottom() - 7, text, VALUE.coloured(Palette.textOn(group.colour())))
                        : new ValueLabel(centre, top - 4, text, VALUE.haloed()));
                x += slot;
            }
            canvas.text((groupStart + x) / 2, area.bottom() + 16 + groupLabels, group.name(), GROUP);
            x += slot;
        }
        canvas.line(area.left(), area.bottom(), area.right(), area.bottom(), Palette.AXIS, 1);
        for (Reference reference : references) {
            double py = y.pixel(reference.value());
            canvas.line(area.left(), py, area.right(), py, Palette.REFERENCE, 1.5, true);
            canvas.text(area.right() + 6, py + 4, reference.shortLabel(), REFERENCE);
        }
        // Values last: over the reference lines, in case one runs through a short column's value.
        valueLabels.forEach(label -> canvas.text(label.x(), label.y(), label.text(), label.style()));
        canvas.text((area.left() + area.right()) / 2, area.bottom() + 16 + groupLabels + 20, xTitle,
                Axes.TITLE.anchored(TextStyle.Anchor.MIDDLE));
        return canvas.render();
    }
}
