package io.github.mongolock.benchmark;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.github.mongolock.LockSession;
import io.github.mongolock.MongoLockManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Case 8's victim, in a JVM of its own: one manager acquires {@code crash-0} .. {@code crash-<N-1>} with the
 * given lease, answers {@code READY acquireMs=.. held=..}, and then does nothing but renew until the benchmark
 * kills it ({@code kill -9}): nothing is released. Ends by itself when its standard input ends.
 *
 * <p>Arguments: uri database collection locks leaseMillis.
 */
public final class CrashHolder {

    private CrashHolder() {
    }

    public static void main(String[] args) {
        ChildMain.exitWhenParentGoes();
        try {
            run(args[0], args[1], args[2], Integer.parseInt(args[3]), Duration.ofMillis(Long.parseLong(args[4])));
        } catch (Throwable failed) {
            System.out.println(Protocol.ERROR + " " + failed);
            failed.printStackTrace();
            System.out.flush();
            Runtime.getRuntime().halt(1);
        }
    }

    private static void run(String uri, String database, String collection, int locks, Duration lease)
            throws InterruptedException {
        MongoClient client = MongoClients.create(uri);
        // The store timeout bounds the renewal too: up to a whole lease, so that on the stand-in (which scans for
        // the earlier protocol's updateMany) one renewal at a time is in flight, never a pile of timed-out ones.
        Duration storeTimeout = lease.compareTo(MongoLockManager.DEFAULT_STORE_TIMEOUT) > 0
                ? lease : MongoLockManager.DEFAULT_STORE_TIMEOUT;
        MongoLockManager manager = WakeUpMode.POLL.apply(MongoLockManager.builder().client(client).database(database)
                .collection(collection).instanceId("crash-holder").leaseTime(lease).waitTime(Duration.ZERO)
                .storeTimeout(storeTimeout)).build();
        List<LockSession> sessions = new ArrayList<>(locks);
        long start = System.nanoTime();
        for (int i = 0; i < locks; i++) {
            sessions.add(manager.acquire(CrashWaiter.name(i), Duration.ZERO));
        }
        long acquired = System.nanoTime();
        int held = 0;
        for (LockSession session : sessions) {
            held += session.isHeld() ? 1 : 0;
        }
        System.out.printf(Locale.ROOT, "%s acquireMs=%d held=%d%n", Protocol.READY, (acquired - start) / 1_000_000, held);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // renewing, until killed
    }
}
