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

    /** The i-th colour for categories without a fixed one; repeats after seven. */
    public static String category(int index) {
        return CATEGORIES.get(Math.floorMod(index, CATEGORIES.size()));
    }
}
