package io.github.mongolock.benchmark.chart;

import java.util.List;

/**
 * A chart's words outside the plot: the title, a subtitle saying what is measured and how, and a
 * footnote (the run and the machine), the last two wrapped to the chart's width.
 */
public record ChartTitles(String title, String subtitle, String footnote) {

    static final double MARGIN = 16;
    private static final TextStyle TITLE = TextStyle.of(17).bolded();
    private static final TextStyle SUBTITLE = TextStyle.of(12.5).coloured(Palette.MUTED);
    private static final TextStyle FOOTNOTE = TextStyle.of(11).coloured(Palette.MUTED);
    private static final double SUBTITLE_LINE = 17;
    private static final double FOOTNOTE_LINE = 15;

    private List<String> subtitleLines(double width) {
        return subtitle.isEmpty() ? List.of() : TextMetrics.wrap(subtitle, SUBTITLE, width - 2 * MARGIN);
    }

    private List<String> footnoteLines(double width) {
        return footnote.isEmpty() ? List.of() : TextMetrics.wrap(footnote, FOOTNOTE, width - 2 * MARGIN);
    }

    /** From the canvas's top to where the chart's own content may start. */
    double headerHeight(double width) {
        return 34 + subtitleLines(width).size() * SUBTITLE_LINE + 6;
    }

    /** From where the chart's content must end to the canvas's bottom. */
    double footerHeight(double width) {
        return 10 + footnoteLines(width).size() * FOOTNOTE_LINE + 6;
    }

    void draw(SvgCanvas canvas) {
        canvas.text(MARGIN, 26, title, TITLE);
        double y = 26 + SUBTITLE_LINE + 2;
        for (String line : subtitleLines(canvas.width())) {
            canvas.text(MARGIN, y, line, SUBTITLE);
            y += SUBTITLE_LINE;
        }
        List<String> footnotes = footnoteLines(canvas.width());
        double footY = canvas.height() - 8 - (footnotes.size() - 1) * FOOTNOTE_LINE;
        for (String line : footnotes) {
            canvas.text(MARGIN, footY, line, FOOTNOTE);
            footY += FOOTNOTE_LINE;
        }
    }
}
