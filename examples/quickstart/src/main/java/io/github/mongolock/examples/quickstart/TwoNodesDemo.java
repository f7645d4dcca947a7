package io.github.mongolock.examples.quickstart;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.MongoLockManager;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * Two "nodes" (two managers, as on two machines) each try to run the same job three times. The
 * lock lets one run at a time; the other waits, then takes over with the next fencing token.
 * Connects to MONGOLOCK_URI, or starts an in-memory MongoDB stand-in when it is unset.
 */
public final class TwoNodesDemo {

    private static final String JOB = "nightly-invoice-run";
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    public static void main(String[] args) throws Exception {
        String uri = System.getenv("MONGOLOCK_URI");
        MongoServer standIn = null;
        if (uri == null || uri.isBlank()) {
            standIn = new MongoServer(new MemoryBackend());
            standIn.bind("127.0.0.1", 0);
            uri = "mongodb://127.0.0.1:" + standIn.getLocalAddress().getPort();
            say("demo", "MONGOLOCK_URI is not set: started an in-memory MongoDB stand-in at " + uri
                    + " (set MONGOLOCK_URI=mongodb://... to use a real MongoDB); the stand-in cannot serve the change"
                    + " stream of push wake-up, so waiters poll");
        } else {
            say("demo", "using MongoDB at MONGOLOCK_URI");
        }
        boolean pushWakeUp = standIn == null;
        try (MongoLockManager nodeA = node(uri, "node-A", pushWakeUp); MongoLockManager nodeB = node(uri, "node-B", pushWakeUp)) {
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> nodes = new ArrayList<>();
            for (MongoLockManager node : List.of(nodeA, nodeB)) {
                Thread thread = new Thread(() -> runJobThreeTimes(node, start), node.instanceId());
                thread.start();
                nodes.add(thread);
            }
            start.countDown();
            for (Thread thread : nodes) {
                thread.join();
            }
            say("demo", "after both nodes finished, the lock is " + nodeA.inspect(JOB).map(info -> "held by " + info.owner())
                    .orElse("free") + "; the next holder will get token " + (lastToken + 1));
        } finally {
            if (standIn != null) {
                standIn.shutdownNow();
            }
        }
    }

    private static volatile long lastToken;

    /** @param pushWakeUp off on the stand-in: its change streams fail, and the feed would warn before falling back to polling */
    private static MongoLockManager node(String uri, String name, boolean pushWakeUp) {
        return MongoLockManager.builder()
                .uri(uri)
                .database("mongolock_quickstart")
                .instanceId(name)
                .leaseTime(Duration.ofSeconds(10))
                .pushWakeUp(pushWakeUp)
                .build();
    }

    private static void runJobThreeTimes(MongoLockManager node, CountDownLatch start) {
        String me = node.instanceId();
        try {
            start.await();
            for (int run = 1; run <= 3; run++) {
                // A session from tryAcquire must be closed like any other: keep it, never just test it.
                Optional<LockSession> attempt = node.tryAcquire(JOB);
                if (attempt.isEmpty()) {
                    String holder = node.inspect(JOB).map(info -> info.owner() + " (token " + info.fencingToken() + ")")
                            .orElse("someone who just released it");
                    say(me, "run " + run + ": " + JOB + " is busy, held by " + holder + "; waiting up to 10 s");
                    attempt = Optional.of(node.acquire(JOB, Duration.ofSeconds(10)));
                }
                try (LockSession lock = attempt.get()) {
                    lastToken = lock.fencingToken();
                    say(me, "run " + run + ": holds " + JOB + " with token " + lock.fencingToken()
                            + ", hold count " + lock.holdCount());
                    doTheWork(node, lock);
                }
                say(me, "run " + run + ": released " + JOB);
                Thread.sleep(50); // give the other node a fair chance to take it
            }
        } catch (LockTimeoutException busyTooLong) {
            say(me, "gave up: " + busyTooLong.getMessage());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The job calls a helper that locks the same name again: the same owner re-enters. */
    private static void doTheWork(LockManager node, LockSession outer) throws InterruptedException {
        try (LockSession nested = node.acquire(JOB)) {
            say(Thread.currentThread().getName(), "        re-entered: hold count " + nested.holdCount()
                    + ", same token " + nested.fencingToken() + " (" + (nested.fencingToken() == outer.fencingToken()) + ")");
            Thread.sleep(400);
        }
    }

    private static void say(String who, String what) {
        System.out.printf("%s [%-6s] %s%n", LocalTime.now().format(CLOCK), who, what);
    }
}
