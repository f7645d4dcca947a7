package io.github.mongolock.benchmark.chart;

import java.util.ArrayList;
import java.util.List;

/**
 * Estimated widths of text in DejaVu Sans (the font the charts name first; Verdana is as wide),
 * close enough to lay out labels and wrap lines without measuring glyphs. Estimates err wide, so
 * a narrower font leaves room rather than overlapping.
 */
final class TextMetrics {

    private TextMetrics() {
    }

    static double width(String text, double size, boolean bold) {
        double ems = 0;
        for (int i = 0; i < text.length(); i++) {
            ems += em(text.charAt(i));
        }
        return ems * size * (bold ? 1.1 : 1.0);
    }

    static double width(String text, TextStyle style) {
        return width(text, style.size(), style.bold());
    }

    /** Words of {@code text} in lines no wider than {@code maxWidth} (a single longer word gets its own line). */
    static List<String> wrap(String text, TextStyle style, double maxWidth) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            String candidate = line.length() == 0 ? word : line + " " + word;
            if (line.length() > 0 && width(candidate, style) > maxWidth) {
                lines.add(line.toString());
                line.setLength(0);
                line.append(word);
            } else {
                line.setLength(0);
                line.append(candidate);
            }
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }

    private static double em(char c) {
        if (c == ' ') {
            return 0.32;
        }
        if ("il.,:;!|'Ijf".indexOf(c) >= 0) {
            return 0.32;
        }
        if ("trs()[]-/".indexOf(c) >= 0) {
            return 0.45;
        }
        if ("mwMW%".indexOf(c) >= 0) {
            return 0.98;
        }
        if (Character.isDigit(c)) {
            return 0.64;
        }
        if (Character.isUpperCase(c)) {
            return 0.74;
        }
        return Character.isLowerCase(c) ? 0.62 : 0.7;
    }
}
