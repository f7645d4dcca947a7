package io.github.mongolock.torture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Draws one window of a {@link Timeline} as a standalone SVG picture: the caption (what ran, the
 * checker's verdict, what is shown) and the {@link TimelineLegend} on top, then a {@link TimelineBlock}
 * of the whole window, then a second one zoomed on the window's first kill, pause or outage (or, without
 * one, on two seconds of its middle), where bars are wide enough to carry their tokens.
 *
 * <p>Colour tells tokens apart and nothing else: faults are greys, black and shapes (hatching, crosses,
 * ticks), an overlap a red dashed frame with a word, so the picture also reads in grey print.
 */
final class TimelinePicture {

    static final int WIDTH = 1400;
    static final double MARGIN = 16;
    /**
     * Okabe-Ito's colours but yellow (too faint on white), ordered so that each differs from the next in
     * hue and in lightness: tokens follow each other on a lock, so two neighbours never look alike.
     */
    static final List<String> TOKEN_COLOURS = List.of("#0072B2", "#E69F00", "#56B4E9", "#D55E00", "#009E73", "#CC79A7");
    static final String TEXT = "#222222";
    static final String OVERLAP = "#d10000";

    /** A zoom longer than this would draw its bars too thin to carry their tokens. */
    private static final long MAX_ZOOM = 6_000_000_000L;
    /** Shown before the fault a zoom is about, and after its recovery. */
    private static final long ZOOM_MARGIN = 400_000_000L;

    /** The window of the zoom, its heading, and the kill, pause or outage it is about, if any. */
    record Zoom(long from, long to, String heading, Optional<FaultEvent> fault) {
    }

    private final Timeline timeline;
    private final SvgWriter svg;

    private TimelinePicture(Timeline timeline) {
        this.timeline = timeline;
        this.svg = new SvgWriter(WIDTH, timeline.title());
    }

    /**
     * @param from where the window starts (nanoTime)
     * @param to   where it ends
     * @param part what the window is of the run, "whole run" or e.g. "part 2 of 5", for the caption
     */
    static String render(Timeline timeline, long from, long to, String part) {
        return new TimelinePicture(timeline).draw(from, to, part);
    }

    private String draw(long from, long to, String part) {
        svg.open("defs");
        // Diagonal lines with gaps: laid over a bar, they mark the process as stopped without hiding its token's colour.
        svg.open("pattern", "id", "stopped", "width", 6, "height", 6, "patternUnits", "userSpaceOnUse",
                "patternTransform", "rotate(45)");
        svg.element("line", null, "x1", 0, "y1", 0, "x2", 0, "y2", 6, "stroke", "#000000", "stroke-width", 1.3,
                "stroke-opacity", 0.6);
        svg.close("pattern").close("defs");
        TimeAxis window = axis(from, to);
        double y = caption(MARGIN + 18, window, part);
        y = new TimelineLegend(svg, timeline).draw(y + 6);
        Optional<Zoom> zoom = zoom(window);
        TimelineBlock block = new TimelineBlock(svg, timeline);
        y = heading(y + 16, Character.toUpperCase(part.charAt(0)) + part.substring(1) + ": " + window.seconds(from, 1)
                + " to " + window.seconds(to, 1) + " s");
        y = block.draw(y + 6, window, false, zoom);
        if (zoom.isPresent()) {
            y = heading(y + 22, zoom.get().heading());
            y = block.draw(y + 6, axis(zoom.get().from(), zoom.get().to()), true, zoom);
        }
        return svg.finish(y + MARGIN);
    }

    private TimeAxis axis(long from, long to) {
        return new TimeAxis(timeline.origin(), from, to, TimelineBlock.PLOT_LEFT, TimelineBlock.PLOT_RIGHT);
    }

    /** Title, what the run did, the checker's verdict and what this picture shows; returns the y below it. */
    private double caption(double y, TimeAxis window, String part) {
        svg.text(MARGIN, y, timeline.title(), "font-size", 17, "font-weight", "bold", "fill", TEXT);
        y += 8;
        long replacements = timeline.processes().stream().filter(p -> p.matches("w\\d+\\.[1-9]\\d*")).count();
        String counts = timeline.bars().size() + " " + timeline.barNoun() + "s on " + timeline.locks().size() + " lock"
                + (timeline.locks().size() == 1 ? "" : "s") + " by " + timeline.processes().size() + " worker processes"
                + (replacements == 1 ? " (one started in place of a killed one)"
                        : replacements > 1 ? " (" + replacements + " started in place of killed ones)" : "") + "; "
                + TimelineLegend.faultCounts(timeline) + ".";
        String shown = "Shown: " + part + ", " + window.seconds(window.from(), 1) + " to " + window.seconds(window.to(), 1)
                + " s of the scenario's " + window.seconds(timeline.end(), 1) + " s"
                + (part.startsWith("part") ? " (the other parts are in the files next to this one)" : "")
                + "; every " + timeline.barNoun() + " is drawn, at least a pixel wide; hover over a bar for its "
                + timeline.tokenNoun() + " and times.";
        for (String sentence : List.of(counts, timeline.verdict(), shown)) {
            for (String line : wrap(sentence, 12.5, WIDTH - 2 * MARGIN)) {
                y += 17;
                svg.text(MARGIN, y, line, "font-size", 12.5, "fill", TEXT);
            }
        }
        return y;
    }

    private double heading(double y, String text) {
        svg.text(MARGIN, y, text, "font-size", 14, "font-weight", "bold", "fill", TEXT);
        return y;
    }

    /** The window's first kill (a takeover after a dead holder), else pause (a late holder told of its loss), else outage. */
    private Optional<Zoom> zoom(TimeAxis window) {
        for (FaultEvent.Kind kind : List.of(FaultEvent.Kind.KILL, FaultEvent.Kind.PAUSE, FaultEvent.Kind.OUTAGE)) {
            Optional<FaultEvent> first = timeline.faults().stream()
                    .filter(f -> f.kind() == kind && window.shows(f.at(), f.at()))
                    .min(Comparator.comparingLong(FaultEvent::at));
            if (first.isPresent()) {
                FaultEvent fault = first.get();
                long end = Math.max(fault.until(), fault.recovered() ? fault.recoveredAt() : fault.until());
                long from = fault.at() - ZOOM_MARGIN;
                long to = Math.min(end + ZOOM_MARGIN, from + MAX_ZOOM);
                String victim = fault.process() + (timeline.tokenNoun().equals("term") ? " was leader in term " + fault.token()
                        : " held " + fault.lock() + " with token " + fault.token());
                String what = switch (kind) {
                    case KILL -> "the first kill here: " + victim;
                    case PAUSE -> "the first pause here: " + victim;
                    default -> "the first outage of MongoDB here";
                };
                return Optional.of(new Zoom(from, to, "Detail: " + window.seconds(from, 2) + " to " + window.seconds(to, 2)
                        + " s, around " + what, Optional.of(fault)));
            }
        }
        long second = 1_000_000_000L;
        if (window.to() - window.from() <= 4 * second) {
            return Optional.empty(); // the window itself is as wide as a zoom
        }
        long middle = window.from() + (window.to() - window.from()) / 2;
        return Optional.of(new Zoom(middle - second, middle + second, "Detail: " + window.seconds(middle - second, 2)
                + " to " + window.seconds(middle + second, 2) + " s, two seconds from the middle (no kill, pause or outage here)",
                Optional.empty()));
    }

    /** Words in lines no wider than {@code maxWidth} by {@link SvgWriter#textWidth}'s estimate. */
    private static List<String> wrap(String text, double size, double maxWidth) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && SvgWriter.textWidth(line + " " + word, size) > maxWidth) {
                lines.add(line.toString());
                line.setLength(0);
            }
            line.append(line.length() == 0 ? "" : " ").append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }
}
