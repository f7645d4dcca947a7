package io.github.mongolock.benchmark;

import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.ReadWriteHold;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Case 10's load in one worker JVM (command {@code READHEAVY}): threads run operations on a few names until the
 * deadline, each a read with probability {@code readPercent} % and else a write, holding for {@code holdMicros}
 * (parked: work that waits, as I/O does, without taking a core). Kind {@code rw} takes
 * {@code readWriteLock(name).read()} or {@code .write()}; kind {@code ex} takes the exclusive {@code acquire(name)}
 * for both.
 *
 * <p>Correctness across both worker JVMs: one 64-bit word per name in a file both map (shared memory), writers
 * counted in the high 32 bits, readers in the low; a holder adds itself just after its grant returns and removes
 * itself just before it closes, and an atomic add that finds the other side present (or, for a writer and for
 * every exclusive holder, anyone at all) counts a violation. Grants overlapping only between the close's command
 * and the next grant are not seen: the window checked lies strictly inside each hold.
 */
final class ReadHeavyLoad {

    private static final VarHandle WORDS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final long WRITER = 1L << 32;
    /** Wait-time buckets: bucket b holds waits of about e^(b/40) µs (2.5 % wide), up to e^25 µs. */
    static final int BUCKETS_PER_E = 40;
    private static final int BUCKETS = 25 * BUCKETS_PER_E;

    private ReadHeavyLoad() {
    }

    /** args: prefix rw|ex names threads millis startNanos holdMicros readPercent sharedFile */
    static String run(MongoLockManager manager, CommandCounter counter, String[] args) throws InterruptedException {
        String prefix = args[0];
        boolean readWrite = switch (args[1]) {
            case "rw" -> true;
            case "ex" -> false;
            default -> throw new IllegalArgumentException("READHEAVY kind " + args[1] + ": use rw or ex");
        };
        int names = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        long millis = Long.parseLong(args[4]);
        long startAt = Long.parseLong(args[5]);
        long holdNanos = Long.parseLong(args[6]) * 1_000L;
        int readPercent = Integer.parseInt(args[7]);
        MappedByteBuffer shared;
        try (FileChannel file = FileChannel.open(Path.of(args[8]), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            shared = file.map(FileChannel.MapMode.READ_WRITE, 0, 8L * names);
        } catch (IOException failed) {
            throw new IllegalStateException("READHEAVY: cannot map " + args[8] + ": " + failed, failed);
        }
        LongAdder reads = new LongAdder();
        LongAdder writes = new LongAdder();
        LongAdder timeouts = new LongAdder();
        LongAdder violations = new LongAdder();
        LongAdder errors = new LongAdder();
        AtomicReference<String> firstError = new AtomicReference<>("-");
        AtomicLongArray readWaits = new AtomicLongArray(BUCKETS);
        AtomicLongArray writeWaits = new AtomicLongArray(BUCKETS);
        long endAt = startAt + millis * 1_000_000L;
        // A wait longer than the whole round counts as a timeout (starvation), as in case 5.
        LockOptions options = LockOptions.defaults().waitTime(Duration.ofMillis(Math.max(1, millis)));
        while (System.nanoTime() < startAt - 1_000_000) {
            Thread.sleep(1);
        }
        counter.reset();
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                while (System.nanoTime() < startAt) {
                    Thread.onSpinWait();
                }
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (System.nanoTime() < endAt) {
                    int index = random.nextInt(names);
                    String name = prefix + "-" + index;
                    boolean read = random.nextInt(100) < readPercent;
                    long asked = System.nanoTime();
                    AutoCloseable hold;
                    try {
                        if (readWrite) {
                            ReadWriteHold granted = read ? manager.readWriteLock(name).read(options)
                                    : manager.readWriteLock(name).write(options);
                            hold = granted;
                        } else {
                            LockSession granted = manager.acquire(name, options.waitTime().orElseThrow());
                            hold = granted;
                        }
                    } catch (LockTimeoutException late) {
                        timeouts.increment();
                        continue;
                    } catch (RuntimeException failed) {
                        errors.increment();
                        firstError.compareAndSet("-", failed.toString().replace(' ', '_'));
                        continue;
                    }
                    long waited = System.nanoTime() - asked;
                    record(read ? readWaits : writeWaits, waited);
                    int at = index * 8;
                    long mine = read ? 1 : WRITER;
                    long before = (long) WORDS.getAndAdd(shared, at, mine);
                    if (clash(before, read, readWrite)) {
                        violations.increment();
                    }
                    LockSupport.parkNanos(holdNanos);
                    long after = (long) WORDS.getAndAdd(shared, at, -mine) - mine;
                    if (clash(after, read, readWrite)) {
                        violations.increment();
                    }
                    try {
                        hold.close();
                        (read ? reads : writes).increment();
                    } catch (Exception failed) {
                        errors.increment();
                        firstError.compareAndSet("-", failed.toString().replace(' ', '_'));
                    }
                }
            }, "readheavy-" + t);
            thread.start();
            running.add(thread);
        }
        for (Thread thread : running) {
            thread.join();
        }
        long elapsed = System.nanoTime() - startAt;
        return String.format(Locale.ROOT, "%s reads=%d writes=%d timeouts=%d violations=%d errors=%d firstError=%s"
                        + " elapsedMs=%d readWaits=%s writeWaits=%s commands=%s", Protocol.RESULT, reads.sum(), writes.sum(),
                timeouts.sum(), violations.sum(), errors.sum(), firstError.get(), elapsed / 1_000_000, sparse(readWaits),
                sparse(writeWaits), counter.counts().toString().replace(" ", ""));
    }

    /**
     * The commands of one uncontended cycle of each kind, counted on a thread named {@code waiter} (the worker's
     * counter of that thread's commands), after a warm cycle of each: {@code read=2/1 write=.. exclusive=..} as
     * {@code acquire/release}, each {@code total:name+name}.
     */
    static String cycles(MongoLockManager manager, CommandCounter counter, String name) throws InterruptedException {
        String[] answer = new String[1];
        RuntimeException[] failure = new RuntimeException[1];
        Thread caller = new Thread(() -> {
            try {
                StringBuilder text = new StringBuilder();
                for (String kind : List.of("read", "write", "exclusive")) {
                    String lockName = name + "-" + kind;
                    close(take(manager, kind, lockName)); // warm: the document exists, the session is open
                    counter.reset();
                    AutoCloseable hold = take(manager, kind, lockName);
                    String acquire = describe(counter);
                    counter.reset();
                    close(hold);
                    text.append(text.length() == 0 ? "" : " ").append(kind).append('=').append(acquire).append('/')
                            .append(describe(counter));
                }
                answer[0] = text.toString();
            } catch (RuntimeException failed) {
                failure[0] = failed;
            }
        }, "waiter");
        caller.start();
        caller.join();
        if (failure[0] != null) {
            throw failure[0];
        }
        return answer[0];
    }

    private static AutoCloseable take(MongoLockManager manager, String kind, String name) {
        return switch (kind) {
            case "read" -> manager.readWriteLock(name).read();
            case "write" -> manager.readWriteLock(name).write();
            default -> manager.acquire(name);
        };
    }

    private static void close(AutoCloseable hold) {
        try {
            hold.close();
        } catch (RuntimeException failed) {
            throw failed;
        } catch (Exception checked) {
            throw new IllegalStateException(checked);
        }
    }

    private static String describe(CommandCounter counter) {
        StringBuilder names = new StringBuilder();
        new java.util.TreeMap<>(counter.counts()).forEach((command, count) -> {
            if (count > 0) {
                names.append(names.length() == 0 ? "" : "+").append(count > 1 ? count + "x" : "").append(command);
            }
        });
        return counter.total() + ":" + (names.length() == 0 ? "-" : names);
    }

    /** Whether the others present on the name (this holder not counted) contradict this holder's access. */
    private static boolean clash(long others, boolean read, boolean readWrite) {
        if (read && readWrite) {
            return (others >>> 32) != 0; // a writer beside a reader
        }
        return others != 0; // a writer (or an exclusive holder) beside anyone
    }

    private static void record(AtomicLongArray buckets, long nanos) {
        double micros = Math.max(1.0, nanos / 1000.0);
        int bucket = (int) Math.round(Math.log(micros) * BUCKETS_PER_E);
        buckets.incrementAndGet(Math.min(bucket, BUCKETS - 1));
    }

    /** {@code bucket:count,...} of the non-empty buckets, or {@code -}. */
    private static String sparse(AtomicLongArray buckets) {
        StringBuilder text = new StringBuilder();
        for (int b = 0; b < buckets.length(); b++) {
            long count = buckets.get(b);
            if (count > 0) {
                text.append(text.length() == 0 ? "" : ",").append(b).append(':').append(count);
            }
        }
        return text.length() == 0 ? "-" : text.toString();
    }
}
