package io.github.mongolock.torture;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Draws one block of a {@link TimelinePicture}, the whole window or its zoom: a strip for the network
 * and one for the database's clock where the run had such faults, then per lock a lane per worker
 * process alive in the window, and the time axis. On a lane: the bars, then the faults that hit its
 * process on top of them (hatching while stopped, a cross at a kill, a notch at a manager close); an
 * outage shades every lane; an overlap is framed across the two lanes concerned.
 */
final class TimelineBlock {

    /** Lane labels end here; the plot runs from {@link #PLOT_LEFT} to {@link #PLOT_RIGHT}. */
    private static final double LABELS = 196;
    static final double PLOT_LEFT = 206;
    static final double PLOT_RIGHT = TimelinePicture.WIDTH - 24;
    private static final double LANE = 16;
    private static final double BAR = 10;
    private static final double STRIP = 16;
    private static final double LOCK_HEAD = 20;
    private static final double AXIS = 30;
    private static final String TEXT = TimelinePicture.TEXT;
    private static final String MUTED = "#555555";
    /** A write's answer lost (and rolled back), and a stale window, in the network strip. */
    static final String LOST_REPLY = "#b35806";
    static final String STALE_WINDOW = "#6a3d9a";

    private final SvgWriter svg;
    private final Timeline timeline;
    /** The bars by lock and process. */
    private final Map<String, List<Timeline.Bar>> barsByLane;

    TimelineBlock(SvgWriter svg, Timeline timeline) {
        this.svg = svg;
        this.timeline = timeline;
        this.barsByLane = timeline.bars().stream().collect(Collectors.groupingBy(bar -> bar.lock() + "\t" + bar.process()));
    }

    /**
     * Draws a block from {@code top}; returns the y below it. A lane is shaded only while its process
     * lived: a replacement's lane starts where the killed process's ended.
     *
     * @param zoomed whether this is the zoom, whose bars are wide enough to carry their tokens
     * @param zoom   the zoom: framed in the whole window; in the zoom itself, its fault's recovery is measured
     */
    double draw(double top, TimeAxis axis, boolean zoomed, Optional<TimelinePicture.Zoom> zoom) {
        List<String> lanes = timeline.processes().stream()
                .filter(p -> axis.shows(timeline.laneStart(p), timeline.laneEnd(p))).toList();
        double y = top;
        boolean networkStrip = !timeline.network().isEmpty() || timeline.has(FaultEvent.Kind.OUTAGE);
        boolean clockStrip = timeline.has(FaultEvent.Kind.CLOCK_STEP);
        double networkTop = y;
        if (networkStrip) {
            y = strip(y, "network, MongoDB");
        }
        double clockTop = y;
        if (clockStrip) {
            y = strip(y, "database clock");
        }
        double lanesTop = y;
        double[] lockTops = new double[timeline.locks().size()];
        for (int l = 0; l < timeline.locks().size(); l++) {
            y += LOCK_HEAD;
            lockTops[l] = y;
            svg.text(TimelinePicture.MARGIN, y - 6, timeline.locks().get(l), "font-size", 12, "font-weight", "bold",
                    "fill", TEXT);
            svg.element("line", null, "x1", TimelinePicture.MARGIN, "y1", y - 0.5, "x2", PLOT_RIGHT, "y2", y - 0.5,
                    "stroke", "#bbbbbb", "stroke-width", 1);
            for (int p = 0; p < lanes.size(); p++) {
                String process = lanes.get(p);
                long from = Math.max(timeline.laneStart(process), axis.from());
                long to = Math.min(timeline.laneEnd(process), axis.to());
                svg.element("rect", null, "x", axis.x(from), "y", y, "width", axis.width(from, to), "height", LANE,
                        "fill", p % 2 == 0 ? "#eaeaea" : "#f3f3f3");
                svg.text(LABELS, y + 12, timeline.laneLabel(process), "font-size", 11, "text-anchor", "end", "fill", MUTED);
                y += LANE;
            }
        }
        double bottom = y;
        List<Double> ticks = axis.ticks();
        for (double tick : ticks) {
            double x = axis.tickX(tick);
            svg.element("line", null, "x1", x, "y1", top, "x2", x, "y2", bottom, "stroke", "#d8d8d8", "stroke-width", 1);
        }
        for (FaultEvent fault : timeline.faults()) {
            if (fault.kind() == FaultEvent.Kind.OUTAGE && axis.shows(fault.at(), fault.until())) {
                svg.element("rect", "MongoDB unavailable (outage) " + axis.span(fault.at(), fault.until()),
                        "x", axis.x(fault.at()), "y", top, "width", axis.width(fault.at(), fault.until()), "height", bottom - top,
                        "fill", "#000000", "fill-opacity", 0.1);
            } else if (fault.kind() == FaultEvent.Kind.CLOCK_STEP && axis.shows(fault.at(), fault.at())) {
                svg.element("line", null, "x1", axis.x(fault.at()), "y1", top, "x2", axis.x(fault.at()), "y2", bottom,
                        "stroke", "#555555", "stroke-width", 1, "stroke-dasharray", "4 3");
            }
        }
        for (int l = 0; l < timeline.locks().size(); l++) {
            for (int p = 0; p < lanes.size(); p++) {
                lane(axis, zoomed, timeline.locks().get(l), lanes.get(p), lockTops[l] + p * LANE);
            }
        }
        for (Timeline.Overlap overlap : timeline.overlaps()) {
            if (timeline.locks().contains(overlap.lock())) {
                overlap(axis, overlap, lockTops[timeline.locks().indexOf(overlap.lock())], lanes);
            }
        }
        if (networkStrip) {
            network(axis, networkTop);
        }
        if (clockStrip) {
            clock(axis, clockTop);
        }
        if (zoomed) {
            zoom.flatMap(TimelinePicture.Zoom::fault)
                    .filter(f -> f.kind() != FaultEvent.Kind.OUTAGE && timeline.locks().contains(f.lock()))
                    .ifPresent(f -> regrant(axis, f, lockTops[timeline.locks().indexOf(f.lock())]));
        } else {
            zoom.ifPresent(z -> {
                double x = axis.x(z.from());
                svg.element("rect", "shown in detail below", "x", x, "y", lanesTop + 1, "width", axis.width(z.from(), z.to()),
                        "height", bottom - lanesTop - 1, "fill", "none", "stroke", TEXT, "stroke-width", 1.2);
                svg.text(x + 2, lanesTop + 11, "detail below", "font-size", 10, "fill", TEXT, "stroke", "#ffffff",
                        "stroke-width", 3, "paint-order", "stroke");
            });
        }
        return axis(axis, ticks, bottom);
    }

    private double strip(double y, String label) {
        svg.element("rect", null, "x", PLOT_LEFT, "y", y + 2, "width", PLOT_RIGHT - PLOT_LEFT, "height", STRIP - 2,
                "fill", "#f4f4f4");
        svg.text(LABELS, y + 13, label, "font-size", 11, "text-anchor", "end", "fill", MUTED);
        return y + STRIP;
    }

    /** A process's lane in a lock's panel: its bars, then the faults that hit the process on top. */
    private void lane(TimeAxis axis, boolean zoomed, String lock, String process, double top) {
        double barTop = top + (LANE - BAR) / 2;
        for (Timeline.Bar bar : barsByLane.getOrDefault(lock + "\t" + process, List.of())) {
            if (!axis.shows(bar.start(), bar.end())) {
                continue;
            }
            String colour = TimelinePicture.TOKEN_COLOURS.get((int) Math.floorMod(bar.token(),
                    (long) TimelinePicture.TOKEN_COLOURS.size()));
            double x = axis.x(bar.start());
            // At least a pixel: a section of a few milliseconds in a 30-second window must not vanish.
            double width = Math.max(axis.width(bar.start(), bar.end()), 1);
            String hover = lock + " " + timeline.tokenNoun() + " " + bar.token() + ", " + process + ", "
                    + axis.span(bar.start(), bar.end()) + (bar.note().isEmpty() ? "" : ", " + bar.note());
            if (bar.style() == Timeline.Bar.Style.TOLD_LOST) {
                svg.element("rect", hover, "x", x + 0.5, "y", barTop + 0.5, "width", Math.max(width - 1, 0.5), "height",
                        BAR - 1, "fill", colour, "fill-opacity", 0.3, "stroke", colour, "stroke-width", 1);
            } else {
                svg.element("rect", hover, "x", x, "y", barTop, "width", width, "height", BAR, "fill", colour);
            }
            String token = Long.toString(bar.token());
            if (zoomed && width >= SvgWriter.textWidth(token, 9) + 4) {
                svg.text(x + width / 2, barTop + BAR - 1.8, token, "font-size", 9, "text-anchor", "middle", "fill",
                        bar.style() == Timeline.Bar.Style.TOLD_LOST ? TEXT : textOn(colour));
            }
        }
        for (FaultEvent fault : timeline.faults()) {
            boolean stop = fault.kind() == FaultEvent.Kind.PAUSE || fault.kind() == FaultEvent.Kind.KILL;
            if (stop && fault.process().equals(process) && axis.shows(fault.at(), fault.until())) {
                String what = fault.kind() == FaultEvent.Kind.PAUSE ? "paused (SIGSTOP to SIGCONT) "
                        : "stopped (SIGSTOP), then killed (kill -9) ";
                svg.element("rect", process + " " + what + axis.span(fault.at(), fault.until()) + ", holding " + fault.lock()
                                + " " + timeline.tokenNoun() + " " + fault.token(), "x", axis.x(fault.at()), "y", top,
                        "width", Math.max(axis.width(fault.at(), fault.until()), 1), "height", LANE, "fill", "url(#stopped)");
            }
        }
        for (LifecycleHistory.ManagerClose close : timeline.closes()) {
            if (close.process().equals(process) && axis.shows(close.closeStart(), close.closeEnd())) {
                double x = axis.x(close.closeStart());
                svg.element("polygon", process + " closed its lock manager " + close.instanceId() + ", "
                                + axis.span(close.closeStart(), close.closeEnd()), "points",
                        SvgWriter.number(x - 3.5) + "," + SvgWriter.number(top) + " " + SvgWriter.number(x + 3.5) + ","
                                + SvgWriter.number(top) + " " + SvgWriter.number(x) + "," + SvgWriter.number(top + 6),
                        "fill", TEXT);
            }
        }
        for (FaultEvent fault : timeline.faults()) {
            if (fault.kind() == FaultEvent.Kind.KILL && fault.process().equals(process)
                    && axis.shows(fault.until(), fault.until())) {
                cross(svg, axis.x(fault.until()), top + LANE / 2, process + " killed (kill -9) at " + axis.seconds(fault.until())
                        + " s");
            }
        }
    }

    /** A black cross on a white halo, which shows on any bar; {@code hover} may be null. */
    static void cross(SvgWriter svg, double x, double y, String hover) {
        svg.open("g");
        if (hover != null) {
            svg.title(hover);
        }
        for (String[] stroke : new String[][] {{"#ffffff", "4"}, {"#000000", "2"}}) {
            svg.element("path", null, "d", "M" + SvgWriter.number(x - 4.5) + " " + SvgWriter.number(y - 4.5)
                    + " l9 9 m0 -9 l-9 9", "stroke", stroke[0], "stroke-width", stroke[1], "fill", "none");
        }
        svg.close("g");
    }

    private void overlap(TimeAxis axis, Timeline.Overlap overlap, double lockTop, List<String> lanes) {
        if (!axis.shows(overlap.from(), overlap.to())) {
            return;
        }
        double a = lockTop + lanes.indexOf(overlap.earlierProcess()) * LANE;
        double b = lockTop + lanes.indexOf(overlap.laterProcess()) * LANE;
        double x = axis.x(overlap.from());
        svg.element("rect", "overlap on " + overlap.lock() + ": " + timeline.tokenNoun() + " " + overlap.laterToken() + " ("
                        + overlap.laterProcess() + ") ran while " + timeline.tokenNoun() + " " + overlap.earlierToken() + " ("
                        + overlap.earlierProcess() + ") still held the lock, " + axis.span(overlap.from(), overlap.to()),
                "x", x - 2, "y", Math.min(a, b) + 0.5, "width", Math.max(axis.width(overlap.from(), overlap.to()), 1) + 4,
                "height", Math.abs(a - b) + LANE - 1, "fill", "none", "stroke", TimelinePicture.OVERLAP, "stroke-width", 2,
                "stroke-dasharray", "4 2");
        svg.text(x, Math.min(a, b) - 2, "overlap", "font-size", 10, "font-weight", "bold", "fill", TimelinePicture.OVERLAP,
                "stroke", "#ffffff", "stroke-width", 3, "paint-order", "stroke");
    }

    /** Connections reset (ticks) and stalled (bars), and MongoDB down (a labelled box, drawn over them). */
    private void network(TimeAxis axis, double top) {
        // Stale windows first: the ticks inside them are drawn over them.
        List<NetworkFault> network = timeline.network().stream()
                .sorted(Comparator.comparing(fault -> fault.kind() != NetworkFault.Kind.STALE_WINDOW)).toList();
        for (NetworkFault fault : network) {
            if (!axis.shows(fault.at(), fault.until())) {
                continue;
            }
            switch (fault.kind()) {
                case CUT -> {
                    double x = axis.x(fault.at());
                    svg.element("line", "a connection reset at " + axis.seconds(fault.at()) + " s", "x1", x, "y1", top + 2,
                            "x2", x, "y2", top + STRIP, "stroke", "#000000", "stroke-width", 1.2);
                }
                case STALL -> svg.element("rect", "a connection stalled " + axis.span(fault.at(), fault.until()),
                        "x", axis.x(fault.at()), "y", top + 7, "width", Math.max(axis.width(fault.at(), fault.until()), 1),
                        "height", 4, "fill", "#555555", "fill-opacity", 0.6);
                case LOST_REPLY, ROLLED_BACK -> {
                    double x = axis.x(fault.at());
                    boolean rolledBack = fault.kind() == NetworkFault.Kind.ROLLED_BACK;
                    svg.element("line", null, "x1", x, "y1", top + 5, "x2", x, "y2", top + STRIP, "stroke", LOST_REPLY,
                            "stroke-width", 1.2);
                    svg.element("circle", (rolledBack ? "a write applied, its answer lost, rolled back by an election at "
                            : "a write applied and its answer lost at ") + axis.seconds(fault.at()) + " s", "cx", x,
                            "cy", top + 4, "r", 2.5, "fill", rolledBack ? LOST_REPLY : "#ffffff", "stroke", LOST_REPLY);
                }
                case STALE_WINDOW -> svg.element("rect", "an election: majority reads answered from an older snapshot "
                                + axis.span(fault.at(), fault.until()), "x", axis.x(fault.at()), "y", top + 2,
                        "width", Math.max(axis.width(fault.at(), fault.until()), 1), "height", STRIP - 4,
                        "fill", STALE_WINDOW, "fill-opacity", 0.35);
            }
        }
        for (FaultEvent fault : timeline.faults()) {
            if (fault.kind() == FaultEvent.Kind.OUTAGE && axis.shows(fault.at(), fault.until())) {
                double width = axis.width(fault.at(), fault.until());
                svg.element("rect", null, "x", axis.x(fault.at()), "y", top + 2, "width", width, "height", STRIP - 2,
                        "fill", "#8a8a8a");
                if (width > SvgWriter.textWidth("down", 10) + 4) {
                    svg.text(axis.x(fault.at()) + width / 2, top + 12.5, "down", "font-size", 10, "text-anchor", "middle",
                            "fill", "#ffffff");
                }
            }
        }
    }

    /** The database clock's offset from the real time while each step held. */
    private void clock(TimeAxis axis, double top) {
        for (FaultEvent step : timeline.faults()) {
            if (step.kind() != FaultEvent.Kind.CLOCK_STEP || !axis.shows(step.at(), step.until())) {
                continue;
            }
            double width = axis.width(step.at(), step.until());
            String offset = step.clockOffsetMillis() == 0 ? "0 s"
                    : (step.clockOffsetMillis() > 0 ? "+" : "\u2212")
                            + String.format(Locale.ROOT, "%.1f s", Math.abs(step.clockOffsetMillis()) / 1000.0);
            svg.element("rect", "database clock " + offset + " from the real time, written at " + axis.seconds(step.at())
                            + " s, seen by " + axis.seconds(step.signalled()) + " s, until " + axis.seconds(step.until()) + " s",
                    "x", axis.x(step.at()), "y", top + 2.5, "width", Math.max(width, 1), "height", STRIP - 3,
                    "fill", "#ffffff", "stroke", "#555555", "stroke-width", 1);
            if (width > SvgWriter.textWidth(offset, 10) + 4) {
                svg.text(axis.x(step.at()) + width / 2, top + 12.5, offset, "font-size", 10, "text-anchor", "middle",
                        "fill", TEXT);
            }
        }
    }

    /**
     * Above the victim's lock: from the SIGSTOP of a kill or pause to the lock's next grant, the earlier of
     * the harness's poll and the next holder's recorded start (as the checker counts it).
     */
    private void regrant(TimeAxis axis, FaultEvent fault, double lockTop) {
        long next = timeline.bars().stream()
                .filter(b -> b.lock().equals(fault.lock()) && b.token() > fault.token() && !b.process().equals(fault.process())
                        && b.start() - fault.at() > 0)
                .mapToLong(Timeline.Bar::start).min().orElse(FaultEvent.UNRECOVERED);
        long granted = Math.min(next, fault.recoveredAt());
        if (granted == FaultEvent.UNRECOVERED) {
            return;
        }
        double y = lockTop - 8;
        double x1 = axis.x(fault.at());
        double x2 = axis.x(granted);
        svg.element("path", null, "d", "M" + SvgWriter.number(x1) + " " + SvgWriter.number(y - 4) + " v8 m0 -4 H"
                + SvgWriter.number(x2) + " m0 -4 v8", "stroke", TEXT, "stroke-width", 1.2, "fill", "none");
        String text = (timeline.tokenNoun().equals("term") ? "a new term " : fault.lock() + " granted again ")
                + Math.round((granted - fault.at()) / 1e6) + " ms after the SIGSTOP";
        double width = SvgWriter.textWidth(text, 11);
        // On the bracket where it is long enough (a white box cuts the line), else beside it, inside the plot.
        double x = x2 - x1 >= width + 20 ? (x1 + x2) / 2 : x2 + 5 + width <= PLOT_RIGHT ? x2 + 5 + width / 2
                : Math.max(x1 - 5 - width / 2, PLOT_LEFT + width / 2);
        svg.element("rect", null, "x", x - width / 2 - 3, "y", y - 7, "width", width + 6, "height", 14, "fill", "#ffffff");
        svg.text(x, y + 4, text, "font-size", 11, "text-anchor", "middle", "fill", TEXT);
    }

    private double axis(TimeAxis axis, List<Double> ticks, double y) {
        svg.element("line", null, "x1", PLOT_LEFT, "y1", y + 0.5, "x2", PLOT_RIGHT, "y2", y + 0.5, "stroke", "#444444",
                "stroke-width", 1);
        double step = ticks.size() > 1 ? ticks.get(1) - ticks.get(0) : 1;
        int decimals = step >= 1 ? 0 : step >= 0.1 ? 1 : 2;
        for (double tick : ticks) {
            double x = axis.tickX(tick);
            svg.element("line", null, "x1", x, "y1", y, "x2", x, "y2", y + 5, "stroke", "#444444", "stroke-width", 1);
            svg.text(x, y + 17, String.format(Locale.ROOT, "%." + decimals + "f", tick), "font-size", 11,
                    "text-anchor", "middle", "fill", TEXT);
        }
        // Clear of the first tick's label, which is centred on the plot's left edge.
        svg.text(LABELS - 14, y + 17, "seconds since start", "font-size", 11, "text-anchor", "end", "fill", MUTED);
        return y + AXIS;
    }

    /** Near-black on light fills (orange, sky), white on dark ones: whichever has the larger WCAG contrast. */
    static String textOn(String fill) {
        int rgb = Integer.parseInt(fill.substring(1), 16);
        double luminance = 0.2126 * linear(rgb >> 16 & 0xff) + 0.7152 * linear(rgb >> 8 & 0xff) + 0.0722 * linear(rgb & 0xff);
        return luminance > 0.179 ? TEXT : "#ffffff";
    }

    private static double linear(int channel) {
        double c = channel / 255.0;
        return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    }
}
