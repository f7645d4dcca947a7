package io.github.mongolock.admin;

import io.github.mongolock.mongo.ForcedReadWriteRelease;
import io.github.mongolock.mongo.LockState;
import io.github.mongolock.mongo.ReadWriteState;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * How {@link LockAdminCommand} shows read-write locks to people: a table with one row per holder and its mode (after
 * the semaphores' table of {@code list}), {@code key: value} lines for one ({@code inspect-rw}), and what
 * {@code release-rw} did.
 */
final class ReadWriteStateText {

    private static final List<String> COLUMNS = List.of("READ-WRITE LOCK", "MODE", "INSTANCE", "SESSION", "LEASE",
            "RENEWED AGO", "WRITERS QUEUED", "OWNER");

    private ReadWriteStateText() {
    }

    /** Prints nothing when {@code locks} is empty: a deployment without read-write locks sees only the rest. */
    static void table(List<ReadWriteState> locks, PrintStream out) {
        if (locks.isEmpty()) {
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(COLUMNS);
        for (ReadWriteState lock : locks) {
            String queue = queue(lock);
            if (lock.holders().isEmpty()) {
                rows.add(List.of(lock.name(), "-", "-", "-", "-", "-", queue, "-"));
            }
            for (ReadWriteState.Holder holder : lock.holders()) {
                rows.add(List.of(lock.name(), holder.mode().name(), holder.instanceId(), holder.sessionState(), lease(holder),
                        renewedAgo(holder), queue, holder.owner()));
            }
        }
        LockStateText.columns(rows, out);
        out.println(locks.size() + (locks.size() == 1 ? " read-write lock" : " read-write locks")
                + " held or with a writer waiting");
    }

    static void keyValues(ReadWriteState lock, PrintStream out) {
        out.println("read-write lock: " + lock.name());
        out.println("held as: " + (lock.heldAs() == null ? "-" : lock.heldAs().name()));
        out.println("readers: " + lock.readers());
        out.println("fencing token: " + lock.fencingToken());
        out.println("version: " + lock.version());
        out.println("writers queued: " + queue(lock));
        out.println("holders: " + lock.holders().size());
        for (ReadWriteState.Holder holder : lock.holders()) {
            out.println("holder: " + holder.owner() + " mode: " + holder.mode() + " session: " + holder.session()
                    + " (" + holder.sessionState() + ", lease " + lease(holder) + ", renewed ago " + renewedAgo(holder) + ")");
        }
        LockState.Revocation last = lock.lastRevocation();
        out.println("last forced release: " + (last == null ? "-"
                : "at " + last.at() + " by " + last.operator() + " of " + last.owner() + ": " + last.reason()));
    }

    static void released(ForcedReadWriteRelease done, PrintStream out) {
        ReadWriteState.Holder holder = done.holder();
        out.println("released " + holder.mode().name().toLowerCase() + " access to read-write lock \"" + done.before().name()
                + "\" from " + holder.owner() + " by " + done.operator() + ": " + done.reason());
        if (done.sessionTold()) {
            out.println("its holder is told at its next renewal (within a third of its lease" + (holder.lease() == null ? ""
                    : ", " + LockStateText.duration(holder.lease())) + "), and believes it holds the access until then");
        } else {
            out.println("WARNING: its holder's session could not be told (MongoDB unreachable): the holder may believe it"
                    + " holds the access until its session's periodic check (every 60 renewals, about 20 leases)");
        }
    }

    private static String queue(ReadWriteState lock) {
        return lock.writersQueued().isEmpty() ? "-" : String.join(",", lock.writersQueued());
    }

    private static String lease(ReadWriteState.Holder holder) {
        return holder.lease() == null ? "-" : LockStateText.duration(holder.lease());
    }

    private static String renewedAgo(ReadWriteState.Holder holder) {
        return holder.lease() == null ? "-" : LockStateText.duration(holder.sinceRenewal());
    }
}
