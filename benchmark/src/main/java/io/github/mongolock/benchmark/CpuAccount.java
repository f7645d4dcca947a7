package io.github.mongolock.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Locale;

/**
 * How the machine's CPU time splits between this benchmark's processes and everything else, from
 * Linux's {@code /proc} (both counted in the same clock ticks). The machine is shared with other
 * jobs, and a ratio between two blocks measured one after the other only compares like with like
 * if the others took about the same share during both; the report says how much they took.
 * Elsewhere than Linux the figures are unknown.
 */
final class CpuAccount {

    /** Ticks since boot: the machine's busy and total time, and the CPU time of the processes given. */
    record Snapshot(long busyTicks, long totalTicks, long ownTicks) {
    }

    /** Shares of all CPUs' time between two snapshots; NaN when unknown. */
    record Split(double others, double own) {

        String describe() {
            return Double.isNaN(others) ? "unknown" : String.format(Locale.ROOT, "other jobs %.0f%%, this benchmark %.0f%%",
                    100 * others, 100 * own);
        }
    }

    private CpuAccount() {
    }

    static Snapshot now(Collection<Long> pids) {
        try {
            String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            // cpu user nice system idle iowait irq softirq steal ...
            long idle = Long.parseLong(cpu[4]) + Long.parseLong(cpu[5]);
            long busy = 0;
            for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
                busy += Long.parseLong(cpu[i]);
            }
            long own = 0;
            for (long pid : pids) {
                own += processTicks(pid);
            }
            return new Snapshot(busy, busy + idle, own);
        } catch (IOException | RuntimeException unknown) {
            return new Snapshot(-1, -1, -1);
        }
    }

    static Split between(Snapshot from, Snapshot to) {
        long total = to.totalTicks() - from.totalTicks();
        if (from.totalTicks() < 0 || to.totalTicks() < 0 || total <= 0) {
            return new Split(Double.NaN, Double.NaN);
        }
        double own = (to.ownTicks() - from.ownTicks()) / (double) total;
        double busy = (to.busyTicks() - from.busyTicks()) / (double) total;
        return new Split(Math.max(busy - own, 0), own);
    }

    /** utime + stime of a process, all its threads; 0 once it is gone. */
    private static long processTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            // The command name in parentheses may hold spaces: fields are counted after its ')'.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException gone) {
            return 0;
        }
    }
}
