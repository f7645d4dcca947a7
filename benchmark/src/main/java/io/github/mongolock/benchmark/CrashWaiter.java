package io.github.mongolock.benchmark;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.MongoLockManager;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Case 8's survivor, in a JVM of its own: a second manager that wants every lock of the killed {@link CrashHolder}.
 * It starts, warms up on another collection, answers {@code READY}, and on {@code GO} (sent right after the kill)
 * takes the locks in one of two shapes, until it holds them all or its budget runs out:
 * <ul>
 *   <li>{@code scan}: one thread calls {@code tryAcquire} on every name not held yet, pass after pass (a pass
 *       starts at most every lease/5, the waiters' own polling period). Sightings are kept per name across calls,
 *       so each pass goes on watching what the previous one saw.</li>
 *   <li>{@code waits}: {@code threads} threads take the names in order, each {@code acquire(name, wait)} with the
 *       budget left as the wait: every call waits for its own lock.</li>
 * </ul>
 * Its own lease is an hour, so it renews nothing during the run: with the earlier protocol every lock it takes
 * would join its renewal's {@code updateMany}, which the stand-in answers by scanning (docs/benchmark.md).
 * Answers {@code RESULT held=.. allHeldMs=.. ...}, times from {@code GO}; counts every command of its client
 * after {@code GO} (by name) and the documents they wrote (from the server's answers).
 *
 * <p>Arguments: uri database collection locks leaseMillis shape threads budgetMillis.
 */
public final class CrashWaiter {

    private CrashWaiter() {
    }

    static String name(int i) {
        return "crash-" + i;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            String uri = args[0];
            String database = args[1];
            String collection = args[2];
            int locks = Integer.parseInt(args[3]);
            Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
            String shape = args[5];
            int threads = Integer.parseInt(args[6]);
            Duration budget = Duration.ofMillis(Long.parseLong(args[7]));
            CommandCounter commands = CommandCounter.allThreads();
            WriteCounter writes = new WriteCounter(thread -> true, database + "." + collection);
            MongoClient client = MongoClients.create(MongoClientSettings.builder()
                    .applyConnectionString(new ConnectionString(uri)).addCommandListener(commands)
                    .addCommandListener(writes).applyToConnectionPoolSettings(pool -> pool.maxSize(threads + 4)).build());
            MongoLockManager.Builder builder = WakeUpMode.POLL.apply(MongoLockManager.builder().client(client)
                    .database(database).instanceId("crash-waiter").leaseTime(Duration.ofHours(1)).waitTime(Duration.ZERO));
            try (MongoLockManager warmUp = builder.collection(collection + "_warm_up").build()) {
                for (int i = 0; i < 100; i++) {
                    warmUp.acquire("warm-" + i).close();
                }
            }
            MongoLockManager manager = builder.collection(collection).build();
            System.out.println(Protocol.READY);
            System.out.flush();
            String go = input.readLine();
            if (go == null || !go.startsWith("GO")) {
                Runtime.getRuntime().halt(1);
            }
            Thread parentWatch = new Thread(() -> {
                try {
                    while (input.readLine() != null) {
                        // nothing more is sent; end of input means the benchmark is gone
                    }
                } catch (IOException gone) {
                    // same as end of input
                }
                Runtime.getRuntime().halt(1);
            }, "parent-watch");
            parentWatch.setDaemon(true);
            parentWatch.start();
            commands.reset();
            writes.reset();
            Taking taking = new Taking(manager, locks, System.nanoTime(), System.nanoTime() + budget.toNanos());
            int passes = switch (shape) {
                case "scan" -> taking.scan(lease.dividedBy(5));
                case "waits" -> taking.waits(threads);
                default -> throw new IllegalArgumentException("shape " + shape + ": use scan or waits");
            };
            long[] grants = taking.grantMillis();
            System.out.printf(Locale.ROOT, "%s held=%d allHeldMs=%d firstGrantMs=%d halfHeldMs=%d passes=%d timedOut=%d"
                            + " commands=%s totalCommands=%d documentsWritten=%d sessionEnds=%d grantMillis=%s%n", Protocol.RESULT,
                    grants.length, grants.length == locks ? grants[grants.length - 1] : -1,
                    grants.length > 0 ? grants[0] : -1, grants.length >= (locks + 1) / 2 ? grants[(locks + 1) / 2 - 1] : -1,
                    passes, taking.timedOut.get(), commands.counts().toString().replace(" ", ""), commands.total(),
                    writes.documents(), writes.sessionEnds(), Arrays.stream(grants).mapToObj(Long::toString)
                            .collect(java.util.stream.Collectors.joining(",")));
            System.out.flush();
        } catch (Throwable failed) {
            System.out.println(Protocol.ERROR + " " + failed);
            failed.printStackTrace();
            System.out.flush();
        }
        // Not closing the manager: releasing N locks one by one is not part of this case; the benchmark drops the database.
        Runtime.getRuntime().halt(0);
    }

    /** One run of taking the locks: when each was granted, in ms from the start. */
    private static final class Taking {

        private final MongoLockManager manager;
        private final int locks;
        private final long start;
        private final long deadline;
        private final long[] grantedAt;
        private final AtomicInteger granted = new AtomicInteger();
        private final AtomicLong timedOut = new AtomicLong();
        /** Kept so that nothing is released before the end (a dropped session is not released, but stays reachable). */
        private final List<LockSession> held;

        Taking(MongoLockManager manager, int locks, long start, long deadline) {
            this.manager = manager;
            this.locks = locks;
            this.start = start;
            this.deadline = deadline;
            this.grantedAt = new long[locks];
            this.held = java.util.Collections.synchronizedList(new ArrayList<>(locks));
        }

        private void granted(LockSession session) {
            grantedAt[granted.getAndIncrement()] = System.nanoTime();
            held.add(session);
        }

        int scan(Duration passPeriod) throws InterruptedException {
            List<String> remaining = new LinkedList<>();
            for (int i = 0; i < locks; i++) {
                remaining.add(name(i));
            }
            int passes = 0;
            while (!remaining.isEmpty() && System.nanoTime() - deadline < 0) {
                long passStart = System.nanoTime();
                passes++;
                for (Iterator<String> names = remaining.iterator(); names.hasNext() && System.nanoTime() - deadline < 0; ) {
                    Optional<LockSession> session = manager.tryAcquire(names.next());
                    if (session.isPresent()) {
                        granted(session.get());
                        names.remove();
                    }
                }
                long nextPass = passStart + passPeriod.toNanos();
                while (!remaining.isEmpty() && System.nanoTime() - nextPass < 0) {
                    Thread.sleep(Math.max(1, (nextPass - System.nanoTime()) / 1_000_000));
                }
            }
            return passes;
        }

        int waits(int threads) throws InterruptedException {
            AtomicInteger next = new AtomicInteger();
            List<Thread> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread thread = new Thread(() -> {
                    for (int i = next.getAndIncrement(); i < locks; i = next.getAndIncrement()) {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            return;
                        }
                        try {
                            granted(manager.acquire(name(i), Duration.ofNanos(left)));
                        } catch (LockTimeoutException late) {
                            timedOut.incrementAndGet();
                            return;
                        }
                    }
                }, "crash-waiter-" + t);
                thread.start();
                running.add(thread);
            }
            for (Thread thread : running) {
                thread.join();
            }
            return 0;
        }

        /** Grant times in ms from the start, ascending. */
        long[] grantMillis() {
            long[] millis = new long[granted.get()];
            for (int i = 0; i < millis.length; i++) {
                millis[i] = (grantedAt[i] - start) / 1_000_000;
            }
            Arrays.sort(millis);
            return millis;
        }
    }
}
