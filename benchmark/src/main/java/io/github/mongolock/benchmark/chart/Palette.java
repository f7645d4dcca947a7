package io.github.mongolock.benchmark.chart;

import java.util.List;

/**
 * Colours: the Okabe-Ito palette, which readers with any common colour-vision deficiency can tell
 * apart, and greys for text, axes and grid. Charts that tell series apart by colour also use a
 * second cue (marker shape, position or a label), so a grey print still reads.
 */
public final class Palette {

    public static final String BLUE = "#0072B2";
    public static final String ORANGE = "#E69F00";
    public static final String GREEN = "#009E73";
    public static final String PURPLE = "#CC79A7";
    public static final String VERMILLION = "#D55E00";
    public static final String SKY = "#56B4E9";
    public static final String YELLOW = "#F0E442";

    public static final String TEXT = "#222222";
    public static final String MUTED = "#555555";
    public static final String AXIS = "#444444";
    public static final String GRID = "#e3e3e3";
    public static final String REFERENCE = "#333333";

    private static final List<String> CATEGORIES = List.of(BLUE, ORANGE, GREEN, PURPLE, VERMILLION, SKY, YELLOW);

    private Palette() {
    }

    /**
     * Text colour that reads on {@code fill} (a {@code #rrggbb} colour): white on dark fills such as
     * {@link #BLUE}, near-black on light ones such as {@link #ORANGE}, where white would be faint.
     */
    public static String textOn(String fill) {
        int rgb = Integer.parseInt(fill.substring(1), 16);
        double luminance = 0.2126 * linear(rgb >> 16 & 0xff) + 0.7152 * linear(rgb >> 8 & 0xff) + 0.0722 * linear(rgb & 0xff);
        // The luminance at which white and black text have the same WCAG contrast ratio.
        return luminance > 0.179 ? TEXT : "#ffffff";
    }

    private static double linear(int channel) {
        double c = channel / 255.0;
        return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    }

    /** The i-th colour for categories without a fixed one; repeats after seven. */
    public static String category(int index) {
        return CATEGORIES.get(Math.floorMod(index, CATEGORIES.size()));
    }
}
