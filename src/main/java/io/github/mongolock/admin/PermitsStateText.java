package io.github.mongolock.admin;

import io.github.mongolock.mongo.LockState;
import io.github.mongolock.mongo.PermitsState;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * How {@link LockAdminCommand} shows semaphores to people: a table with one row per holder (after the locks' table of
 * {@code list}), {@code key: value} lines for one ({@code inspect-permits}).
 */
final class PermitsStateText {

    private static final List<String> COLUMNS = List.of("SEMAPHORE", "LIMIT", "USED", "INSTANCE", "PERMITS", "SESSION",
            "LEASE", "RENEWED AGO", "QUEUE", "OWNER");

    private PermitsStateText() {
    }

    /** Prints nothing when {@code semaphores} is empty: a deployment without semaphores sees only its locks. */
    static void table(List<PermitsState> semaphores, PrintStream out) {
        if (semaphores.isEmpty()) {
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(COLUMNS);
        for (PermitsState semaphore : semaphores) {
            String queue = semaphore.queue().isEmpty() ? "-" : String.join(",", semaphore.queue());
            if (semaphore.holders().isEmpty()) {
                rows.add(List.of(semaphore.name(), String.valueOf(semaphore.limit()), String.valueOf(semaphore.used()),
                        "-", "-", "-", "-", "-", queue, "-"));
            }
            for (PermitsState.Holder holder : semaphore.holders()) {
                rows.add(List.of(semaphore.name(), String.valueOf(semaphore.limit()), String.valueOf(semaphore.used()),
                        holder.instanceId(), String.valueOf(holder.permits()), holder.sessionState(), lease(holder),
                        renewedAgo(holder), queue, holder.owner()));
            }
        }
        LockStateText.columns(rows, out);
        out.println(semaphores.size() + (semaphores.size() == 1 ? " semaphore" : " semaphores") + " with permits held or queued for");
    }

    static void keyValues(PermitsState semaphore, PrintStream out) {
        out.println("semaphore: " + semaphore.name());
        out.println("limit: " + semaphore.limit());
        out.println("used: " + semaphore.used());
        out.println("free: " + semaphore.free());
        out.println("fencing token: " + semaphore.fencingToken());
        out.println("version: " + semaphore.version());
        out.println("queue: " + (semaphore.queue().isEmpty() ? "-" : String.join(",", semaphore.queue())));
        out.println("holders: " + semaphore.holders().size());
        for (PermitsState.Holder holder : semaphore.holders()) {
            out.println("holder: " + holder.owner() + " permits: " + holder.permits() + " session: " + holder.session()
                    + " (" + holder.sessionState() + ", lease " + lease(holder) + ", renewed ago " + renewedAgo(holder) + ")");
        }
        LockState.Revocation last = semaphore.lastRevocation();
        out.println("last forced release: " + (last == null ? "-"
                : "at " + last.at() + " by " + last.operator() + " of " + last.owner() + ": " + last.reason()));
    }

    private static String lease(PermitsState.Holder holder) {
        return holder.lease() == null ? "-" : LockStateText.duration(holder.lease());
    }

    private static String renewedAgo(PermitsState.Holder holder) {
        return holder.lease() == null ? "-" : LockStateText.duration(holder.sinceRenewal());
    }
}
