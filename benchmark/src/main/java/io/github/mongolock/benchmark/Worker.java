package io.github.mongolock.benchmark;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.MongoLockManager;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * One of the two "machines" of the handoff, contention and fairness cases: a JVM with one manager
 * per wake-up mode, each on its own collection, driven by the benchmark over standard input.
 *
 * <pre>
 * HOLD mode name            acquire now                      -> HELD
 * WAIT mode name            acquire on a new thread          -> WAITING, later ACQUIRED nanoTime attempts
 * RELEASE mode name         t = nanoTime(); close()          -> RELEASED t
 * CONTEND mode names threads millis startNanos               -> RESULT ops=.. timeouts=.. commands=..
 * TURNS mode name threads millis waitMillis holdMillis pauseMillis try|acquire startNanos
 *                           threads take turns on one name, every call logged (see {@link TurnTaking})
 *                                                            -> RESULT elapsedMs=.. commands=.. turns=..
 * HOTJVM mode name threads millis
 *                           one hot lock, this manager and a second one of this JVM with threads callers each
 *                                                            -> RESULT hot=.. first=.. second=.. timeouts=.. commands=..
 * SOLO mode name slices     one caller alone, fresh manager, 1 s slices after a 3 s warm-up (see {@link OneJvmHotLock})
 *                                                            -> RESULT solo=cycles/s,..
 * READHEAVY mode prefix rw|ex names threads millis startNanos holdMicros readPercent sharedFile
 *                           95 %-read style load, read-write lock or exclusive lock (see {@link ReadHeavyLoad})
 *                                                            -> RESULT reads=.. writes=.. violations=.. commands=..
 * CYCLES mode name          one caller alone (a thread named "waiter"), after a warm cycle of each: the commands of a
 *                           read, a write and an exclusive acquire, and of their closes  -> RESULT read=acquire/release ..
 * STATUS mode -             the push wake-up's status        -> STATUS PUSHING|...
 * RESET mode -              close and rebuild that manager  -> RESET
 * COUNTS mode -             getMore count and mean time, and all commands by name, since the last COUNTS
 *                                                            -> COUNTS getMore=.. getMoreMeanMs=.. commands={..}
 * </pre>
 * {@code nanoTime} values are compared across the two processes: on one Linux machine
 * {@link System#nanoTime()} reads the same monotonic clock in every process.
 * Arguments: uri database label [collection prefix, default {@code workers}: a case that should not
 * share documents with the others gives its own]. Ends when its input ends.
 */
public final class Worker {

    private final Map<WakeUpMode, MongoLockManager> managers = new EnumMap<>(WakeUpMode.class);
    private final Map<WakeUpMode, CommandCounter> counters = new EnumMap<>(WakeUpMode.class);
    /** Only the WAIT thread's commands: how many attempts a waiter made before it got the lock. */
    private final Map<WakeUpMode, CommandCounter> waiterCounters = new EnumMap<>(WakeUpMode.class);
    private final Map<String, LockSession> sessions = new ConcurrentHashMap<>();
    private final Map<WakeUpMode, MongoClient> clients = new EnumMap<>(WakeUpMode.class);

    private final String database;
    private final String label;
    private final String collectionPrefix;

    private Worker(String uri, String database, String label, String collectionPrefix) {
        this.database = database;
        this.label = label;
        this.collectionPrefix = collectionPrefix;
        for (WakeUpMode mode : WakeUpMode.values()) {
            CommandCounter counter = CommandCounter.allThreads();
            CommandCounter waiterCounter = new CommandCounter(thread -> thread.getName().equals("waiter"));
            waiterCounters.put(mode, waiterCounter);
            MongoClient client = MongoClients.create(MongoClientSettings.builder()
                    .applyConnectionString(new ConnectionString(uri)).addCommandListener(counter)
                    .addCommandListener(waiterCounter)
                    .applyToConnectionPoolSettings(pool -> pool.maxSize(32)).build());
            clients.put(mode, client);
            counters.put(mode, counter);
            managers.put(mode, newManager(mode));
        }
    }

    private MongoLockManager newManager(WakeUpMode mode) {
        return newManager(mode, label);
    }

    private MongoLockManager newManager(WakeUpMode mode, String instanceId) {
        return mode.apply(MongoLockManager.builder().client(clients.get(mode)).database(database)
                .collection(collectionPrefix + "_" + mode.name().toLowerCase(Locale.ROOT)).instanceId(instanceId)
                .leaseTime(Duration.ofSeconds(30)).waitTime(Duration.ofSeconds(10))).build();
    }

    public static void main(String[] args) throws Exception {
        Worker worker = new Worker(args[0], args[1], args[2], args.length > 3 ? args[3] : "workers");
        reply(Protocol.READY);
        try (BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line; (line = input.readLine()) != null; ) {
                try {
                    worker.handle(line.trim().split(" "));
                } catch (RuntimeException | InterruptedException failed) {
                    reply(Protocol.ERROR + " " + line + ": " + failed);
                }
            }
        } finally {
            worker.managers.values().forEach(MongoLockManager::close);
            worker.clients.values().forEach(MongoClient::close);
        }
        System.exit(0);
    }

    private void handle(String[] command) throws InterruptedException {
        WakeUpMode mode = WakeUpMode.valueOf(command[1]);
        MongoLockManager manager = managers.get(mode);
        String name = command[2];
        switch (command[0]) {
            case "HOLD" -> {
                sessions.put(mode + name, manager.acquire(name));
                reply("HELD");
            }
            case "WAIT" -> {
                CommandCounter attempts = waiterCounters.get(mode);
                Thread waiter = new Thread(() -> {
                    attempts.reset();
                    reply("WAITING");
                    try {
                        LockSession session = manager.acquire(name);
                        long acquiredAt = System.nanoTime();
                        sessions.put(mode + name, session);
                        reply("ACQUIRED " + acquiredAt + " " + attempts.count("findAndModify"));
                    } catch (RuntimeException failed) {
                        reply(Protocol.ERROR + " WAIT " + name + ": " + failed);
                    }
                }, "waiter");
                waiter.start();
            }
            case "RELEASE" -> {
                LockSession session = sessions.remove(mode + name);
                long releasing = System.nanoTime();
                session.close();
                reply("RELEASED " + releasing);
            }
            case "STATUS" -> reply("STATUS " + manager.pushWakeUpStatus());
            case "COUNTS" -> {
                CommandCounter counter = counters.get(mode);
                reply(String.format(Locale.ROOT, "COUNTS getMore=%d getMoreMeanMs=%.2f commands=%s", counter.count("getMore"),
                        counter.meanElapsedMillis("getMore"), counter.counts().toString().replace(" ", "")));
                counter.reset();
            }
            case "RESET" -> {
                // A fresh manager: stops the previous one's change stream, so its background
                // traffic does not run on through the other mode's measurements.
                manager.close();
                managers.put(mode, newManager(mode));
                reply("RESET");
            }
            case "CONTEND" -> contend(mode, manager, Arrays.copyOfRange(command, 2, command.length));
            case "HOTJVM" -> reply(Protocol.RESULT + " " + OneJvmHotLock.hot(manager, () -> newManager(mode, label + "-second"),
                    name, Integer.parseInt(command[3]), Long.parseLong(command[4]), counters.get(mode)));
            case "SOLO" -> reply(Protocol.RESULT + " " + OneJvmHotLock.solo(() -> newManager(mode, label + "-alone"), name,
                    Integer.parseInt(command[3])));
            case "READHEAVY" -> reply(ReadHeavyLoad.run(manager, counters.get(mode),
                    Arrays.copyOfRange(command, 2, command.length)));
            case "CYCLES" -> reply(Protocol.RESULT + " " + ReadHeavyLoad.cycles(manager, waiterCounters.get(mode), name));
            case "TURNS" -> reply(Protocol.RESULT + " " + TurnTaking.run(manager,
                    TurnTaking.Plan.parse(name, Arrays.copyOfRange(command, 3, command.length)), counters.get(mode)));
            default -> throw new IllegalArgumentException("unknown command " + command[0]);
        }
    }

    /** Threads acquire and release names (a single one, or random among many) until the deadline. */
    private void contend(WakeUpMode mode, MongoLockManager manager, String[] args) throws InterruptedException {
        String prefix = args[0];
        int names = Integer.parseInt(args[1]);
        int threads = Integer.parseInt(args[2]);
        long millis = Long.parseLong(args[3]);
        long startAt = Long.parseLong(args[4]);
        LongAdder ops = new LongAdder();
        LongAdder timeouts = new LongAdder(); // waits longer than the whole round: starvation
        long endAt = startAt + millis * 1_000_000L;
        List<Thread> running = new ArrayList<>();
        CommandCounter counter = counters.get(mode);
        while (System.nanoTime() < startAt - 1_000_000) {
            Thread.sleep(1);
        }
        counter.reset();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                while (System.nanoTime() < startAt) {
                    Thread.onSpinWait();
                }
                while (System.nanoTime() < endAt) {
                    String name = names == 1 ? prefix : prefix + "-" + ThreadLocalRandom.current().nextInt(names);
                    LockSession session;
                    try {
                        session = manager.acquire(name, Duration.ofMillis(Math.max(1, millis)));
                    } catch (LockTimeoutException late) {
                        timeouts.increment();
                        continue;
                    }
                    session.close();
                    ops.increment();
                }
            }, "contender-" + t);
            thread.start();
            running.add(thread);
        }
        for (Thread thread : running) {
            thread.join();
        }
        long elapsed = System.nanoTime() - startAt;
        reply(String.format(Locale.ROOT, "%s ops=%d timeouts=%d elapsedMs=%d getMoreMeanMs=%.1f commands=%s",
                Protocol.RESULT, ops.sum(), timeouts.sum(), elapsed / 1_000_000, counter.meanElapsedMillis("getMore"),
                counter.counts().toString().replace(" ", "")));
    }

    private static synchronized void reply(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
