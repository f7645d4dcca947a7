package io.github.mongolock.torture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one worker process's history file (written by {@link HistoryWriter}). Lines, tab-separated:
 * <pre>
 * S lock token owner start                                           a section began
 * W lock token end write plainWrite heldAtEnd                        its work is over, close() comes next
 * E lock token owner start end write plainWrite heldAtEnd close listenerLost   it ended
 * A lock kind askedAt failedAt                                       an acquire threw
 * L lock token owner at                                              the listener got LEASE_LOST
 * C instanceId closeStart closeEnd name=owner,...                    a lock manager was closed; MongoDB then showed those held
 * R lock token owner holdCount kind at                               a hold count contradicting the caller
 * H lock token acquiredOn finishedOn                                 a hold handed over between pool tasks
 * B lock thread outcome                                              an acquire on a thread that had detached an open hold of it
 * X call exceptionClass message                                      a non-LockException reached a caller
 * J election at                                                      the worker joined the election
 * U at                                                               the worker is up, about to take its first lock
 * Y term before after                                                isLeader() answered yes (LEADER workload)
 * G term at                                                          the leadership listener was told granted
 * V term reason at                                                   it was told revoked
 * P semaphore limit permits token owner start askedAt                 a hold of permits began (PERMITS workload; READ_WRITE: a read 1 permit, a write WHOLE)
 * Q semaphore token end write heldAtEnd                              its work is over, close() comes next
 * F semaphore token close listenerLost                               its close() returned or threw
 * </pre>
 * A start without an end belongs to a process that died inside the section: its end is the W line's
 * time if there is one (it died in {@code close()}, which may have released the lock already), else
 * the death time the harness recorded. A torn last line (the process died while writing it) is ignored.
 */
final class HistoryReader {

    record ProcessHistory(List<SectionRecord> sections, List<AcquireFailure> failures, int openSections,
                          LifecycleHistory lifecycle, LeaderHistory leader, List<PermitSection> permits) {
    }

    private HistoryReader() {
    }

    /**
     * @param deathNanos when the process was killed (its open sections end then), or its exit time
     */
    static ProcessHistory read(String process, Path file, long deathNanos) {
        List<String> lines;
        try {
            lines = Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot read history " + file, failed);
        }
        Map<String, SectionRecord> open = new LinkedHashMap<>();
        List<SectionRecord> sections = new ArrayList<>();
        List<AcquireFailure> failures = new ArrayList<>();
        List<LifecycleHistory.ManagerClose> closes = new ArrayList<>();
        List<LifecycleHistory.Reentry> reentries = new ArrayList<>();
        List<LifecycleHistory.Handover> handovers = new ArrayList<>();
        List<LifecycleHistory.DetachedRetry> retries = new ArrayList<>();
        List<LifecycleHistory.ForeignException> foreign = new ArrayList<>();
        List<LeaderHistory.Answer> answers = new ArrayList<>();
        List<LeaderHistory.Notice> grants = new ArrayList<>();
        List<LeaderHistory.Notice> revocations = new ArrayList<>();
        Map<String, PermitSection> openPermits = new LinkedHashMap<>();
        List<PermitSection> permits = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.split("\t", -1);
            try {
                switch (f[0]) {
                    case "S" -> open.put(f[1] + "#" + f[2], new SectionRecord(process, f[1], Long.parseLong(f[2]), f[3],
                            Long.parseLong(f[4]), Long.MAX_VALUE, true, SectionRecord.WriteOutcome.NONE,
                            SectionRecord.WriteOutcome.NONE, false, SectionRecord.CloseOutcome.NONE, false,
                            f.length > 5 ? Long.parseLong(f[5]) : Long.parseLong(f[4])));
                    case "W" -> open.computeIfPresent(f[1] + "#" + f[2], (key, started) -> new SectionRecord(process,
                            started.lock(), started.token(), started.owner(), started.start(), Long.parseLong(f[3]), false,
                            SectionRecord.WriteOutcome.valueOf(f[4]), SectionRecord.WriteOutcome.valueOf(f[5]),
                            Boolean.parseBoolean(f[6]), SectionRecord.CloseOutcome.NONE, false, started.askedAt()));
                    case "E" -> {
                        SectionRecord started = open.remove(f[1] + "#" + f[2]);
                        long start = Long.parseLong(f[4]);
                        sections.add(new SectionRecord(process, f[1], Long.parseLong(f[2]), f[3], start,
                                Long.parseLong(f[5]), false, SectionRecord.WriteOutcome.valueOf(f[6]),
                                SectionRecord.WriteOutcome.valueOf(f[7]), Boolean.parseBoolean(f[8]),
                                SectionRecord.CloseOutcome.valueOf(f[9]), Boolean.parseBoolean(f[10]),
                                started == null ? start : started.askedAt()));
                    }
                    case "A" -> failures.add(new AcquireFailure(process, f[1], f[2], Long.parseLong(f[3]),
                            Long.parseLong(f[4])));
                    case "C" -> closes.add(new LifecycleHistory.ManagerClose(process, f[1], Long.parseLong(f[2]),
                            Long.parseLong(f[3]), f[4].isEmpty() ? List.of() : List.of(f[4].split(","))));
                    case "R" -> reentries.add(new LifecycleHistory.Reentry(process, f[1], Long.parseLong(f[2]), f[3],
                            Integer.parseInt(f[4]), LifecycleHistory.Reentry.Kind.valueOf(f[5]), Long.parseLong(f[6])));
                    case "H" -> handovers.add(new LifecycleHistory.Handover(process, f[1], Long.parseLong(f[2]), f[3], f[4]));
                    case "B" -> retries.add(new LifecycleHistory.DetachedRetry(process, f[1], f[2], f[3]));
                    case "X" -> foreign.add(new LifecycleHistory.ForeignException(process, f[1], f[2], f[3]));
                    case "Y" -> answers.add(new LeaderHistory.Answer(process, Long.parseLong(f[1]), Long.parseLong(f[2]),
                            Long.parseLong(f[3])));
                    case "G" -> grants.add(new LeaderHistory.Notice(process, Long.parseLong(f[1]), "", Long.parseLong(f[2])));
                    case "V" -> revocations.add(new LeaderHistory.Notice(process, Long.parseLong(f[1]), f[2],
                            Long.parseLong(f[3])));
                    case "P" -> openPermits.put(f[1] + "#" + f[4], new PermitSection(process, f[1], Integer.parseInt(f[2]),
                            Integer.parseInt(f[3]), Long.parseLong(f[4]), f[5], Long.parseLong(f[7]), Long.parseLong(f[6]),
                            Long.MAX_VALUE, true, SectionRecord.WriteOutcome.NONE, false, SectionRecord.CloseOutcome.NONE, false));
                    case "Q" -> openPermits.computeIfPresent(f[1] + "#" + f[2], (key, started) -> started.withWork(
                            Long.parseLong(f[3]), SectionRecord.WriteOutcome.valueOf(f[4]), Boolean.parseBoolean(f[5])));
                    case "F" -> {
                        PermitSection worked = openPermits.remove(f[1] + "#" + f[2]);
                        if (worked != null) {
                            permits.add(worked.closed(SectionRecord.CloseOutcome.valueOf(f[3]), Boolean.parseBoolean(f[4])));
                        }
                    }
                    default -> {
                        // "L" lines are for people reading the file (the E line carries the same fact); "J" and "U" mark a start.
                    }
                }
            } catch (RuntimeException torn) {
                // A line cut short by kill -9: only the very last one can be.
            }
        }
        for (SectionRecord section : open.values()) {
            sections.add(section.open() ? section.endedByDeath(deathNanos) : section);
        }
        for (PermitSection hold : openPermits.values()) {
            permits.add(hold.open() ? hold.endedByDeath(deathNanos) : hold);
        }
        return new ProcessHistory(sections, failures, open.size() + openPermits.size(),
                new LifecycleHistory(closes, reentries, handovers, retries, foreign),
                new LeaderHistory(answers, grants, revocations), permits);
    }
}
