package io.github.mongolock.torture;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

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

    /** @param askedAt when the acquire call that granted it began */
    void started(String lock, long token, String owner, long start, long askedAt) {
        line("S\t" + lock + "\t" + token + "\t" + owner + "\t" + start + "\t" + askedAt);
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

    /** A hold of {@code permits} of {@code semaphore} (limit {@code limit}) began: written before its work. */
    void permitsStarted(String semaphore, int limit, int permits, long token, String owner, long start, long askedAt) {
        line("P\t" + semaphore + "\t" + limit + "\t" + permits + "\t" + token + "\t" + owner + "\t" + start + "\t" + askedAt);
    }

    /** Its work is over and {@code close()} comes next. */
    void permitsWorkDone(String semaphore, long token, long end, SectionRecord.WriteOutcome write, boolean heldAtEnd) {
        line("Q\t" + semaphore + "\t" + token + "\t" + end + "\t" + write + "\t" + heldAtEnd);
    }

    /** {@code close()} returned or threw. */
    void permitsEnded(String semaphore, long token, SectionRecord.CloseOutcome close, boolean listenerLost) {
        line("F\t" + semaphore + "\t" + token + "\t" + close + "\t" + listenerLost);
    }

    void acquireFailed(String lock, String kind, long askedAt, long failedAt) {
        line("A\t" + lock + "\t" + kind + "\t" + askedAt + "\t" + failedAt);
    }

    void leaseLost(String lock, long token, String owner, long at) {
        line("L\t" + lock + "\t" + token + "\t" + owner + "\t" + at);
    }

    /** A lock manager's {@code close()} ran from {@code closeStart} to {@code closeEnd}; MongoDB then showed {@code heldLocks}. */
    void managerClosed(String instanceId, long closeStart, long closeEnd, List<String> heldLocks) {
        line("C\t" + instanceId + "\t" + closeStart + "\t" + closeEnd + "\t" + String.join(",", heldLocks));
    }

    void reentry(String lock, long token, String owner, int holdCount, LifecycleHistory.Reentry.Kind kind, long at) {
        line("R\t" + lock + "\t" + token + "\t" + owner + "\t" + holdCount + "\t" + kind + "\t" + at);
    }

    void handedOver(String lock, long token, String acquiredOn, String finishedOn) {
        line("H\t" + lock + "\t" + token + "\t" + acquiredOn + "\t" + finishedOn);
    }

    void detachedRetry(String lock, String thread, String outcome) {
        line("B\t" + lock + "\t" + thread + "\t" + outcome);
    }

    /** The worker is connected and about to take its first lock: its first record, so the harness knows it is up. */
    void up(long at) {
        line("U\t" + at);
    }

    /** The worker joined the election {@code election}: its first record, so the harness knows it is up. */
    void joined(String election, long at) {
        line("J\t" + election + "\t" + at);
    }

    /** {@code isLeader()} answered yes for {@code term}, asked between {@code before} and {@code after}. */
    void leaderAnswer(long term, long before, long after) {
        line("Y\t" + term + "\t" + before + "\t" + after);
    }

    void leadershipGranted(long term, long at) {
        line("G\t" + term + "\t" + at);
    }

    void leadershipRevoked(long term, String reason, long at) {
        line("V\t" + term + "\t" + reason + "\t" + at);
    }

    /** A caller got {@code failure} from {@code call}, though the lock API promises only {@code LockException}s. */
    void foreignException(String call, RuntimeException failure) {
        String message = String.valueOf(failure.getMessage()).replace('\t', ' ').replace('\n', ' ');
        line("X\t" + call + "\t" + failure.getClass().getName() + "\t" + message);
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
