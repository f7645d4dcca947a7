package io.github.mongolock.admin;

import io.github.mongolock.mongo.LockState;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** How {@link LockAdminCommand} shows locks to people: a table for many, {@code key: value} lines for one. */
final class LockStateText {

    private static final List<String> COLUMNS = List.of("NAME", "INSTANCE", "HOLDS", "TOKEN", "LEASE",
            "RENEWED AGO", "MIN HOLD", "QUEUE", "OWNER");

    private LockStateText() {
    }

    static void table(List<LockState> locks, PrintStream out) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(COLUMNS);
        for (LockState lock : locks) {
            rows.add(List.of(lock.name(), orDash(lock.instanceId()), String.valueOf(lock.holds()),
                    String.valueOf(lock.fencingToken()), duration(lock.lease()),
                    lock.held() ? duration(lock.sinceRenewal()) : "-", lock.minimumHoldKept() ? "kept" : "-",
                    queue(lock), orDash(lock.owner())));
        }
        columns(rows, out);
        out.println(locks.size() + (locks.size() == 1 ? " lock" : " locks") + " held or queued for");
    }

    /** {@code rows} (the first: the headings) in columns as wide as their widest cell, two spaces apart. */
    static void columns(List<List<String>> rows, PrintStream out) {
        int[] widths = new int[rows.get(0).size()];
        rows.forEach(row -> {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        });
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                line.append(i == row.size() - 1 ? row.get(i) : String.format("%-" + widths[i] + "s  ", row.get(i)));
            }
            out.println(line.toString().stripTrailing());
        }
    }

    static void keyValues(LockState lock, PrintStream out) {
        out.println("name: " + lock.name());
        out.println("held: " + (lock.held() ? "yes" : "no"));
        out.println("owner: " + orDash(lock.owner()));
        out.println("instance: " + orDash(lock.instanceId()));
        out.println("holds: " + lock.holds());
        out.println("fencing token: " + lock.fencingToken());
        out.println("version: " + lock.version());
        out.println("lease: " + duration(lock.lease()));
        out.println("acquired at: " + orDash(lock.acquiredAt()));
        out.println("renewed at: " + orDash(lock.renewedAt()));
        out.println("renewed ago: " + duration(lock.sinceRenewal()) + " (database clock)");
        out.println("minimum hold kept: " + (lock.minimumHoldKept() ? "yes (released, kept until its minimum hold ends)" : "no"));
        out.println("queue: " + queue(lock));
        LockState.Revocation last = lock.lastRevocation();
        out.println("last forced release: " + (last == null ? "-"
                : "at " + last.at() + " by " + last.operator() + " of " + last.owner() + ": " + last.reason()));
    }

    private static String queue(LockState lock) {
        return lock.queue().isEmpty() ? "-" : lock.queue().stream().collect(Collectors.joining(","));
    }

    private static String orDash(Object value) {
        return value == null ? "-" : value.toString();
    }

    /** 850ms, 12.3s, 4m05s, 2h10m: short, and precise where it matters (leases are often seconds). */
    static String duration(Duration duration) {
        if (duration == null) {
            return "unknown";
        }
        long millis = duration.toMillis();
        if (Math.abs(millis) < 1_000) {
            return millis + "ms";
        }
        if (Math.abs(millis) < 60_000) {
            return String.format(Locale.ROOT, "%.1fs", millis / 1000.0);
        }
        long seconds = duration.toSeconds();
        return seconds < 3600 ? String.format("%dm%02ds", seconds / 60, seconds % 60)
                : String.format("%dh%02dm", seconds / 3600, seconds % 3600 / 60);
    }
}
