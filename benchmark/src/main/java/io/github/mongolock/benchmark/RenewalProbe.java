package io.github.mongolock.benchmark;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gte;
import static com.mongodb.client.model.Filters.lte;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.MongoLockManager;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.bson.RawBsonDocument;

/**
 * Case 6, in a JVM of its own so its heap holds nothing but one manager and its locks: acquires N
 * locks with one manager, measures heap and threads per held lock, then watches the first renewal
 * run and counts the commands the renewal thread sends, the documents they wrote (from the server's
 * answers, {@link WriteCounter}), the oplog bytes MongoDB would write for them ({@link OplogEstimate}) and
 * the entries the server's own oplog received in that interval (the stand-in's, in its own format).
 *
 * <p>Heap: used heap after full GCs, before and after the N acquisitions. The lock names and the
 * list that keeps the sessions are allocated before the first reading, and the client's pool and
 * the manager's renewal thread are warmed up on another collection first, so the difference is
 * what the library (and the sessions it returns) keeps per held lock.
 *
 * <p>Arguments: uri database locks leaseMillis [collection, default {@code renewal}]. Answers
 * {@code RESULT key=value ...} on stdout; ends when its standard input ends (the benchmark is gone) or
 * after answering.
 */
public final class RenewalProbe {

    private RenewalProbe() {
    }

    public static void main(String[] args) throws Exception {
        ChildMain.exitWhenParentGoes();
        try {
            run(args[0], args[1], Integer.parseInt(args[2]), Duration.ofMillis(Long.parseLong(args[3])),
                    args.length > 4 ? args[4] : "renewal");
        } catch (Throwable failed) {
            System.out.println(Protocol.ERROR + " " + failed);
            failed.printStackTrace();
        }
        System.out.flush();
        // Not closing the manager on purpose: releasing N locks one by one is not part of this case;
        // the benchmark drops the database. halt() also skips waiting for the in-flight renewal.
        Runtime.getRuntime().halt(0);
    }

    private static void run(String uri, String database, int locks, Duration lease, String collection) throws Exception {
        CommandCounter renewerCommands = new CommandCounter(thread -> thread.getName().startsWith("mongolock-renewer-"));
        CommandCounter allCommands = CommandCounter.allThreads();
        WriteCounter renewerWrites = new WriteCounter(thread -> thread.getName().startsWith("mongolock-renewer-"),
                database + "." + collection);
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean(); // all live threads of the JVM
        int threadsBeforeManager = threads.getThreadCount();
        MongoClient client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(uri))
                .addCommandListener(renewerCommands).addCommandListener(allCommands).addCommandListener(renewerWrites).build());
        // Polling: the case is about renewal; a change stream would add its own traffic and thread.
        // The store timeout bounds every call, the renewal's updateMany too: on the stand-in, which
        // scans, renewing 10,000 names takes 18-45 s, past the 10 s default, and every lease was lost.
        // A renewal may take up to its interval (lease/3) and still be in time.
        Duration storeTimeout = lease.dividedBy(3).compareTo(MongoLockManager.DEFAULT_STORE_TIMEOUT) > 0
                ? lease.dividedBy(3) : MongoLockManager.DEFAULT_STORE_TIMEOUT;
        MongoLockManager manager = WakeUpMode.POLL.apply(MongoLockManager.builder().client(client).database(database)
                .collection(collection).leaseTime(lease).waitTime(Duration.ZERO).storeTimeout(storeTimeout)).build();
        LockOptions warmUpLease = LockOptions.defaults().leaseTime(Duration.ofMinutes(30)).waitTime(Duration.ZERO);
        MongoLockManager warmUp = WakeUpMode.POLL.apply(MongoLockManager.builder().client(client).database(database)
                .collection(collection + "_warm_up").leaseTime(lease).waitTime(Duration.ZERO)).build();
        for (int i = 0; i < 200; i++) {
            warmUp.acquire("warm-" + i, warmUpLease).close();
            manager.acquire("warm-" + i, Duration.ZERO).close(); // starts the renewal thread; leaves 200 freed documents
        }
        warmUp.close();
        List<String> names = new ArrayList<>(locks);
        for (int i = 0; i < locks; i++) {
            names.add("held-" + i);
        }
        List<LockSession> sessions = new ArrayList<>(locks);
        int threadsBefore = threads.getThreadCount();
        long heapBefore = usedHeapAfterGc(memory);
        allCommands.reset();
        renewerCommands.reset();
        long start = System.nanoTime();
        for (String name : names) {
            sessions.add(manager.acquire(name));
        }
        long acquiredAt = System.nanoTime();
        long acquireCommands = allCommands.total();
        long heapAfter = usedHeapAfterGc(memory);
        int threadsAfter = threads.getThreadCount();
        boolean renewedDuringAcquisition = renewerCommands.total() > 0;
        renewerCommands.reset();
        renewerWrites.reset();

        // The first renewal is due lease/3 after the first acquisition; wait for it to start and end.
        long interval = lease.toNanos() / 3;
        long deadline = start + interval * 2 + Duration.ofMinutes(2).toNanos();
        while (renewerCommands.total() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        long renewalStarted = renewerCommands.lastStartedNanos();
        long renewalStartedWall = System.currentTimeMillis() - (System.nanoTime() - renewalStarted) / 1_000_000;
        while (renewerCommands.lastSucceededNanos() < renewalStarted && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        long renewalEnded = renewerCommands.lastSucceededNanos();
        long runMillis = (renewalEnded - renewalStarted) / 1_000_000;
        // Count what the renewal thread sends within this interval (e.g. a check read after a
        // partial match), stopping short of the next run, which starts one interval after this one.
        long windowEnd = Math.max(renewalStarted + interval * 9 / 10, renewalEnded + 1);
        while (System.nanoTime() < windowEnd) {
            Thread.sleep(10);
        }
        long windowEndWall = System.currentTimeMillis();
        long renewalCommandCount = renewerCommands.total();
        long renewalDocuments = renewerWrites.documents();
        long oplogEstimate = renewerWrites.estimatedOplogBytes();
        long[] oplog = oplogWritten(client, database + "." + collection, renewalStartedWall - 5, windowEndWall);
        long renewalUpdateCount = renewerCommands.count("update");
        String renewalCommandNames = renewerCommands.counts().toString().replace(" ", "");
        String renewerState = "-";
        if (renewalCommandCount == 0) {
            // No renewal seen: say what the renewal thread is doing, for the report.
            for (Map.Entry<Thread, StackTraceElement[]> entry : Thread.getAllStackTraces().entrySet()) {
                if (entry.getKey().getName().startsWith("mongolock-renewer-")) {
                    StringBuilder frames = new StringBuilder(entry.getKey().getState().toString());
                    for (int i = 0; i < Math.min(6, entry.getValue().length); i++) {
                        frames.append("<").append(entry.getValue()[i]);
                    }
                    renewerState = frames.toString().replace(" ", "");
                }
            }
        }
        int stillHeld = 0;
        for (LockSession session : sessions) {
            stillHeld += session.isHeld() ? 1 : 0;
        }
        System.out.printf(Locale.ROOT, "%s locks=%d leaseMs=%d intervalMs=%d acquireMs=%d acquireCommands=%d"
                        + " heapBytesPerLock=%.0f threadsBeforeManager=%d threadsBefore=%d threadsAfter=%d"
                        + " renewalSeen=%b renewalCommands=%d renewalUpdates=%d renewalCommandNames=%s renewalMs=%d"
                        + " renewalMaxUpdateMs=%d stillHeld=%d renewedDuringAcquisition=%b renewerState=%s"
                        + " renewalDocuments=%d renewalOplogEstimateBytes=%d oplogEntries=%d oplogBytes=%d%n",
                Protocol.RESULT, locks, lease.toMillis(), interval / 1_000_000, (acquiredAt - start) / 1_000_000,
                acquireCommands, (heapAfter - heapBefore) / (double) locks, threadsBeforeManager, threadsBefore,
                threadsAfter, renewalStarted != 0 && renewalEnded >= renewalStarted, renewalCommandCount,
                renewalUpdateCount, renewalCommandNames, runMillis,
                renewerCommands.maxElapsedNanos("update") / 1_000_000, stillHeld, renewedDuringAcquisition, renewerState,
                renewalDocuments, oplogEstimate, oplog[0], oplog[1]);
    }

    /**
     * The server's own oplog entries for {@code namespace} written between the two wall-clock times (the stand-in's
     * oplog, in its own format, or a replica set's): {entries, BSON bytes}; {-1, -1} when it cannot be read.
     */
    private static long[] oplogWritten(MongoClient client, String namespace, long fromMillis, long toMillis) {
        try {
            long entries = 0;
            long bytes = 0;
            for (RawBsonDocument entry : client.getDatabase("local").getCollection("oplog.rs", RawBsonDocument.class)
                    .find(and(eq("ns", namespace), gte("wall", new Date(fromMillis)), lte("wall", new Date(toMillis))))) {
                entries++;
                bytes += entry.getByteBuffer().remaining();
            }
            return new long[] {entries, bytes};
        } catch (RuntimeException unreadable) {
            System.err.println("renewal probe: the oplog could not be read: " + unreadable);
            return new long[] {-1, -1};
        }
    }

    private static long usedHeapAfterGc(MemoryMXBean memory) throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
