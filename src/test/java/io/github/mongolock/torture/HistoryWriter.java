package io.github.mongolock.torture;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A worker's history file: one tab-separated line per record, each flushed to the operating system
 * before the call returns, so that a {@code kill -9} loses nothing already written (the kernel keeps
 * the page cache of a dead process). A section's start line is written before its work begins, so a
 * killed holder's section is known, open-ended. Thread-safe. Line formats are in {@link HistoryReader}.
 */
final class HistoryWriter implements AutoCloseable {

    private final BufferedWriter out;

    HistoryWriter(Path file) {
        try {
            Files.createDirectories(file.getParent());
            out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot open history file " + file, failed);
        }
    }

    void started(String lock, long token, String owner, long start) {
        line("S\t" + lock + "\t" + token + "\t" + owner + "\t" + start);
    }

    /** The work is over and {@code close()} comes next: if the process dies in it, the section still ended here. */
    void workDone(String lock, long token, long end, SectionRecord.WriteOutcome write, SectionRecord.WriteOutcome plainWrite,
                  boolean heldAtEnd) {
        line("W\t" + lock + "\t" + token + "\t" + end + "\t" + write + "\t" + plainWrite + "\t" + heldAtEnd);
    }

    void ended(SectionRecord section) {
        line("E\t" + section.lock() + "\t" + section.token() + "\t" + section.owner() + "\t" + section.start() + "\t"
                + section.end() + "\t" + section.write() + "\t" + section.plainWrite() + "\t" + section.heldAtEnd()
                + "\t" + section.close() + "\t" + section.listenerLost());
    }

    void acquireFailed(String lock, String kind, long askedAt, long failedAt) {
        line("A\t" + lock + "\t" + kind + "\t" + askedAt + "\t" + failedAt);
    }

    void leaseLost(String lock, long token, String owner, long at) {
        line("L\t" + lock + "\t" + token + "\t" + owner + "\t" + at);
    }

    private synchronized void line(String text) {
        try {
            out.write(text);
            out.write('\n');
            out.flush();
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot write history", failed);
        }
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException ignored) {
            // The lines are flushed already; nothing is lost.
        }
    }
}
