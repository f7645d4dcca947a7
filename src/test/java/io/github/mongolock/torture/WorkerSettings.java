package io.github.mongolock.torture;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one worker process is told, passed as {@code key=value} program arguments.
 *
 * @param uri            MongoDB as the worker reaches it (through the fault proxy)
 * @param process        the process's name, also its instance id
 * @param deadlineNanos  nanoTime at which the worker stops starting sections
 * @param clockOffsetNanos added to the lock manager's clock (0: the plain system clock)
 * @param workload       what the worker's threads do with the locks
 * @param workers        the fleet's number of worker slots (the {@code MANY_HOLDS} ring has a segment per slot)
 */
record WorkerSettings(String uri, String database, String process, int threads, int locks, long leaseMs,
                      long waitMs, long storeTimeoutMs, int maxSections, long deadlineNanos, Path history,
                      long clockOffsetNanos, int workMinMicros, int workMaxMicros, Workload workload, int workers) {

    /** What a worker's threads do. */
    enum Workload {
        /** Each thread loops acquire, critical section, release on one lock manager. */
        LOOP,
        /**
         * As LOOP, but one section in {@link TortureWorker#LONG_HOLD_ONE_IN} holds its lock for 1 to 2
         * leases, through several renewals: a step of the database's clock then meets a live holder.
         */
        LONG_HOLDS,
        /**
         * As LOOP, but one section in {@link TortureWorker#MEDIUM_HOLD_ONE_IN} holds its lock for 0.1-0.4 s: a
         * waiter that reads such a hold's session from a stale snapshot meets a live holder.
         */
        MEDIUM_HOLDS,
        /** As LOOP, while a driver thread closes the lock manager every 1-2 s and builds a new one ({@link ManagerGenerations}). */
        SHUTDOWN,
        /** A small pool acquires, detaches and hands each hold to another task that finishes it ({@link HandoverWorkload}). */
        HANDOVER,
        /**
         * The worker joins the election {@link #ELECTION} and one thread asks {@code isLeader()} in a loop,
         * recording the yes answers with the time before and after each call ({@link LeaderWorkload}).
         */
        LEADER,
        /**
         * One thread takes a batch of a few hundred names, half of them wanted by each neighbouring worker
         * slot, holds them all at once, then finishes their sections one by one ({@link ManyLocksWorkload}).
         */
        MANY_HOLDS,
        /**
         * Each thread loops acquire of 1 or 2 permits of one of {@code locks} semaphores (limits 2, 3, ...), a fenced
         * write inside, release ({@link PermitsWorkload}).
         */
        PERMITS,
        /**
         * Each thread loops read access (write in one round of {@link ReadWriteWorkload#WRITE_ONE_IN}) of one of
         * {@code locks} read-write locks, a fenced write inside a write, release ({@link ReadWriteWorkload}).
         */
        READ_WRITE
    }

    static final String LOCKS_COLLECTION = "locks";
    static final String COUNTERS_COLLECTION = "counters";
    /** The election of the {@code LEADER} workload, which is also its lock's name. */
    static final String ELECTION = "leader";

    static String lockName(int index) {
        return "lock-" + index;
    }

    List<String> toArgs() {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("uri", uri);
        values.put("database", database);
        values.put("process", process);
        values.put("threads", threads);
        values.put("locks", locks);
        values.put("leaseMs", leaseMs);
        values.put("waitMs", waitMs);
        values.put("storeTimeoutMs", storeTimeoutMs);
        values.put("maxSections", maxSections);
        values.put("deadlineNanos", deadlineNanos);
        values.put("history", history);
        values.put("clockOffsetNanos", clockOffsetNanos);
        values.put("workMinMicros", workMinMicros);
        values.put("workMaxMicros", workMaxMicros);
        values.put("workload", workload);
        values.put("workers", workers);
        return values.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
    }

    static WorkerSettings parse(String[] args) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("expected key=value, got " + arg);
            }
            values.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return new WorkerSettings(values.get("uri"), values.get("database"), values.get("process"),
                Integer.parseInt(values.get("threads")), Integer.parseInt(values.get("locks")),
                Long.parseLong(values.get("leaseMs")), Long.parseLong(values.get("waitMs")),
                Long.parseLong(values.get("storeTimeoutMs")), Integer.parseInt(values.get("maxSections")),
                Long.parseLong(values.get("deadlineNanos")), Path.of(values.get("history")),
                Long.parseLong(values.get("clockOffsetNanos")), Integer.parseInt(values.get("workMinMicros")),
                Integer.parseInt(values.get("workMaxMicros")), Workload.valueOf(values.get("workload")),
                Integer.parseInt(values.get("workers")));
    }

    /** These settings for one worker slot's process. */
    WorkerSettings forProcess(String name, Path historyFile, long clockOffset) {
        return new WorkerSettings(uri, database, name, threads, locks, leaseMs, waitMs, storeTimeoutMs, maxSections,
                deadlineNanos, historyFile, clockOffset, workMinMicros, workMaxMicros, workload, workers);
    }

    /** The worker slot of this process ({@code w2.1}: slot 2). */
    int slot() {
        return Integer.parseInt(process.substring(1, process.indexOf('.')));
    }
}
