package io.github.mongolock.torture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a scenario's {@link Timeline} as SVG next to its histories: {@code timeline.svg}, or, where the
 * run is longer than {@link #MAX_PAGE} (the long configuration), {@code timeline-1-of-5.svg} and so on,
 * equal parts of at most that length. Every section stays drawn, each part a few hundred kilobytes at
 * the long run's rate; a picture of 140 s in one would make its bars a fraction of a pixel.
 */
final class TimelineWriter {

    /** The short run's scenarios (3 s to start, 14 or 21 s of work, the last sections) fit into one part. */
    static final Duration MAX_PAGE = Duration.ofSeconds(30);

    private TimelineWriter() {
    }

    /** @return the files written */
    static List<Path> write(Path directory, Timeline timeline) {
        long span = Math.max(timeline.end() - timeline.origin(), 1);
        int parts = (int) Math.max(1, (span + MAX_PAGE.toNanos() - 1) / MAX_PAGE.toNanos());
        List<Path> written = new ArrayList<>();
        for (int part = 0; part < parts; part++) {
            long from = timeline.origin() + span * part / parts;
            long to = timeline.origin() + span * (part + 1) / parts;
            Path file = directory.resolve(parts == 1 ? "timeline.svg" : "timeline-" + (part + 1) + "-of-" + parts + ".svg");
            String svg = TimelinePicture.render(timeline, from, to, parts == 1 ? "whole run" : "part " + (part + 1) + " of " + parts);
            try {
                Files.writeString(file, svg, StandardCharsets.UTF_8);
            } catch (IOException failed) {
                throw new UncheckedIOException("cannot write the timeline " + file, failed);
            }
            written.add(file);
        }
        return written;
    }

    /**
     * Writes the timeline and says where on standard output, with its size and time. A picture that
     * cannot be drawn is reported, not thrown: the run's own verdict, which the caller returns next, is
     * worth more than its picture (and {@code TimelinePictureTest} keeps the drawing honest).
     */
    static void writeAndReport(Path directory, Timeline timeline) {
        long begin = System.nanoTime();
        try {
            List<Path> files = write(directory, timeline);
            long bytes = 0;
            for (Path file : files) {
                bytes += Files.size(file);
            }
            System.out.println("[torture] timeline: " + (files.size() == 1 ? files.get(0) : files.size() + " parts in " + directory)
                    + " (" + timeline.bars().size() + " bars, " + bytes / 1024 + " KB, "
                    + Duration.ofNanos(System.nanoTime() - begin).toMillis() + " ms)");
        } catch (IOException | RuntimeException failed) {
            System.err.println("[torture] the timeline of " + timeline.title() + " could not be written: " + failed);
            failed.printStackTrace();
        }
    }

    private static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** The checker's verdict in a sentence or two: its safety counters, the recovery, how many problems it listed. */
    static String verdict(ScenarioResult result) {
        CheckReport r = result.report();
        StringBuilder text = new StringBuilder("Checker: ");
        if (result.scenario() == Scenario.LEADER) {
            CheckReport.LeaderFigures l = r.leader();
            text.append(count(l.doubleLeaders(), "double leader")).append(", ")
                    .append(count(l.termOrderViolations(), "term-order violation")).append(" over ").append(count(l.terms(), "term"));
        } else {
            text.append(count(r.overlaps(), "overlap")).append(", ").append(count(r.tokenOrderViolations(), "token-order violation"))
                    .append(", ").append(count(r.lostUpdates(), "lost update")).append(" (").append(r.unfencedLostUpdates())
                    .append(" unfenced), ").append(count(r.pauseViolations(), "pause violation")).append(", ")
                    .append(count(r.heldPastClose(), "lock")).append(" held past close, ")
                    .append(count(r.locksHeldAtEnd(), "lock")).append(" held at the end");
        }
        if (r.maxRecoveryFromWatchNanos() >= 0) {
            text.append("; longest recovery ").append(Duration.ofNanos(r.maxRecoveryFromWatchNanos()).toMillis()).append(" ms");
            if (result.recoveryBound() != null) {
                text.append(" (bound ").append(result.recoveryBound().toMillis()).append(" ms)");
            }
        } else if (r.maxIdleGapNanos() >= 0) {
            text.append("; longest a lock stayed unused ").append(Duration.ofNanos(r.maxIdleGapNanos()).toMillis()).append(" ms");
        }
        text.append('.');
        if (!r.problems().isEmpty()) {
            // Described in the test output, with raw nanoTimes: the picture says how many, and frames the overlaps.
            text.append(" The checker listed ").append(count(r.problems().size(), "problem")).append(" (see the test output).");
        }
        return text.toString();
    }
}
