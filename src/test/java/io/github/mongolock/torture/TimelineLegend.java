package io.github.mongolock.torture;

import java.util.ArrayList;
import java.util.List;

/**
 * The legend of a {@link TimelinePicture}: each mark the picture can draw, as it looks there, with what
 * it means; the marks of faults the run did not have are left out. Items flow left to right and wrap.
 */
final class TimelineLegend {

    private static final double SIZE = 11.5;
    private static final double GLYPH = 34;
    private static final double ROW = 20;

    private final SvgWriter svg;
    private final Timeline timeline;

    TimelineLegend(SvgWriter svg, Timeline timeline) {
        this.svg = svg;
        this.timeline = timeline;
    }

    /** Draws a mark in the 34 x 16 box whose top left corner is (x, y). */
    private interface Glyph {
        void draw(double x, double y);
    }

    private record Item(Glyph glyph, String label) {
    }

    /** @return the y below the legend */
    double draw(double top) {
        List<Item> items = new ArrayList<>();
        items.add(new Item((x, y) -> {
            for (int i = 0; i < TimelinePicture.TOKEN_COLOURS.size(); i++) {
                svg.element("rect", null, "x", x + i * 5.5, "y", y + 3, "width", 5.5, "height", 10, "fill",
                        TimelinePicture.TOKEN_COLOURS.get(i));
            }
        }, timeline.tokenNoun().equals("term")
                ? "a term, from its first to its last recorded yes of isLeader(), coloured by its number (6 colours in turn; hover for it)"
                : "critical section, coloured by its fencing token (6 colours in turn; hover for the number)"));
        if (timeline.tokenNoun().equals("token")) {
            items.add(new Item((x, y) -> {
                svg.element("rect", null, "x", x + 0.5, "y", y + 3.5, "width", 30, "height", 9, "fill", "#0072B2",
                        "fill-opacity", 0.3, "stroke", "#0072B2", "stroke-width", 1);
            }, "pale: its worker was told it lost the lease (not protected to its end)"));
        }
        if (timeline.has(FaultEvent.Kind.PAUSE) || timeline.has(FaultEvent.Kind.KILL)) {
            items.add(new Item((x, y) -> {
                svg.element("rect", null, "x", x, "y", y + 3, "width", 31, "height", 10, "fill", "#E69F00");
                svg.element("rect", null, "x", x, "y", y, "width", 31, "height", 16, "fill", "url(#stopped)");
            }, "process stopped (SIGSTOP, then SIGCONT or kill)"));
        }
        if (timeline.has(FaultEvent.Kind.KILL)) {
            items.add(new Item((x, y) -> TimelineBlock.cross(svg, x + 15, y + 8, null), "process killed (kill -9)"));
        }
        if (timeline.has(FaultEvent.Kind.OUTAGE)) {
            items.add(new Item((x, y) -> {
                svg.element("rect", null, "x", x, "y", y, "width", 31, "height", 16, "fill", "#000000", "fill-opacity", 0.1);
                svg.element("rect", null, "x", x, "y", y + 2, "width", 31, "height", 5, "fill", "#8a8a8a");
            }, "MongoDB unavailable (outage)"));
        }
        if (timeline.network().stream().anyMatch(f -> f.kind() == NetworkFault.Kind.CUT)) {
            items.add(new Item((x, y) -> {
                svg.element("line", null, "x1", x + 15, "y1", y + 1, "x2", x + 15, "y2", y + 15, "stroke", "#000000",
                        "stroke-width", 1.2);
            }, "a connection reset"));
        }
        if (timeline.network().stream().anyMatch(f -> f.kind() == NetworkFault.Kind.STALL)) {
            items.add(new Item((x, y) -> {
                svg.element("rect", null, "x", x + 2, "y", y + 6, "width", 27, "height", 4, "fill", "#555555",
                        "fill-opacity", 0.6);
            }, "a connection stalled (its bytes held)"));
        }
        if (has(timeline, NetworkFault.Kind.LOST_REPLY) || has(timeline, NetworkFault.Kind.ROLLED_BACK)) {
            items.add(new Item((x, y) -> {
                svg.element("line", null, "x1", x + 15, "y1", y + 5, "x2", x + 15, "y2", y + 15, "stroke",
                        TimelineBlock.LOST_REPLY, "stroke-width", 1.2);
                svg.element("circle", null, "cx", x + 15, "cy", y + 4, "r", 2.5, "fill", "#ffffff", "stroke",
                        TimelineBlock.LOST_REPLY);
            }, "a write applied, its answer lost (filled: rolled back by an election)"));
        }
        if (has(timeline, NetworkFault.Kind.STALE_WINDOW)) {
            items.add(new Item((x, y) -> svg.element("rect", null, "x", x + 2, "y", y + 2, "width", 27, "height", 12,
                    "fill", TimelineBlock.STALE_WINDOW, "fill-opacity", 0.35), "after an election: majority reads stale"));
        }
        if (timeline.has(FaultEvent.Kind.CLOCK_STEP)) {
            items.add(new Item((x, y) -> {
                svg.element("line", null, "x1", x + 3, "y1", y, "x2", x + 3, "y2", y + 16, "stroke", "#555555",
                        "stroke-width", 1, "stroke-dasharray", "4 3");
                svg.element("rect", null, "x", x + 3, "y", y + 2.5, "width", 28, "height", 11, "fill", "#ffffff",
                        "stroke", "#555555", "stroke-width", 1);
            }, "database clock stepped: its offset from the real time"));
        }
        if (!timeline.closes().isEmpty()) {
            items.add(new Item((x, y) -> {
                svg.element("polygon", null, "points", SvgWriter.number(x + 11.5) + "," + SvgWriter.number(y + 2) + " "
                        + SvgWriter.number(x + 18.5) + "," + SvgWriter.number(y + 2) + " " + SvgWriter.number(x + 15) + ","
                        + SvgWriter.number(y + 8), "fill", TimelinePicture.TEXT);
            }, "the worker closed its lock manager"));
        }
        if (timeline.tokenNoun().equals("token")) {
            items.add(new Item((x, y) -> {
                svg.element("rect", null, "x", x + 2, "y", y + 1, "width", 27, "height", 14, "fill", "none", "stroke",
                        TimelinePicture.OVERLAP, "stroke-width", 2, "stroke-dasharray", "4 2");
            }, "overlap: a larger token ran while a protected section held the lock"));
        }
        double x = TimelinePicture.MARGIN;
        double y = top;
        for (Item item : items) {
            double width = GLYPH + 6 + SvgWriter.textWidth(item.label(), SIZE) + 18;
            if (x > TimelinePicture.MARGIN && x + width > TimelinePicture.WIDTH - TimelinePicture.MARGIN) {
                x = TimelinePicture.MARGIN;
                y += ROW;
            }
            item.glyph().draw(x, y);
            svg.text(x + GLYPH + 6, y + 12, item.label(), "font-size", SIZE, "fill", TimelinePicture.TEXT);
            x += width;
        }
        return y + ROW;
    }

    /** "3 kills, 2 pauses, ..." for the caption; "no faults injected" where there were none. */
    static String faultCounts(Timeline timeline) {
        List<String> counts = new ArrayList<>();
        count(counts, timeline.faults().stream().filter(f -> f.kind() == FaultEvent.Kind.KILL).count(), "holder killed",
                "holders killed");
        count(counts, timeline.faults().stream().filter(f -> f.kind() == FaultEvent.Kind.PAUSE).count(), "holder paused",
                "holders paused");
        count(counts, timeline.faults().stream().filter(f -> f.kind() == FaultEvent.Kind.OUTAGE).count(), "outage", "outages");
        count(counts, timeline.network().stream().filter(f -> f.kind() == NetworkFault.Kind.CUT).count(),
                "connection reset", "connections reset");
        count(counts, timeline.network().stream().filter(f -> f.kind() == NetworkFault.Kind.STALL).count(),
                "connection stalled", "connections stalled");
        count(counts, timeline.network().stream().filter(f -> f.kind() == NetworkFault.Kind.STALE_WINDOW).count(),
                "election with stale reads", "elections with stale reads");
        count(counts, timeline.network().stream().filter(f -> f.kind() == NetworkFault.Kind.LOST_REPLY).count(),
                "write whose answer was lost", "writes whose answers were lost");
        count(counts, timeline.network().stream().filter(f -> f.kind() == NetworkFault.Kind.ROLLED_BACK).count(),
                "write rolled back", "writes rolled back");
        count(counts, timeline.faults().stream().filter(f -> f.kind() == FaultEvent.Kind.CLOCK_STEP).count(),
                "database clock step", "database clock steps");
        count(counts, timeline.closes().size(), "lock manager closed by its worker", "lock managers closed by their workers");
        return counts.isEmpty() ? "no faults injected by the harness" : String.join(", ", counts);
    }

    private static void count(List<String> counts, long n, String one, String many) {
        if (n > 0) {
            counts.add(n + " " + (n == 1 ? one : many));
        }
    }

    private static boolean has(Timeline timeline, NetworkFault.Kind kind) {
        return timeline.network().stream().anyMatch(f -> f.kind() == kind);
    }
}
