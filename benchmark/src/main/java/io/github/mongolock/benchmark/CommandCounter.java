package io.github.mongolock.benchmark;

import com.mongodb.event.CommandFailedEvent;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.event.CommandSucceededEvent;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * Counts the commands a client sends, by command name, and sums their server round-trip times
 * (failed commands included: an answer with an error is a round trip too).
 * The sync driver fires these events on the thread that runs the operation, so a thread filter
 * attributes commands exactly (e.g. only the measuring thread, or only the renewal thread).
 */
final class CommandCounter implements CommandListener {

    private final Predicate<Thread> counted;
    private final ConcurrentHashMap<String, LongAdder> started = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, LongAdder> elapsedNanos = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, LongAdder> maxElapsedNanos = new ConcurrentHashMap<>();
    private volatile long lastStartedNanos;
    private volatile long lastSucceededNanos;
    private final LongAdder elapsedTotal = new LongAdder();

    CommandCounter(Predicate<Thread> counted) {
        this.counted = counted;
    }

    static CommandCounter allThreads() {
        return new CommandCounter(thread -> true);
    }

    @Override
    public void commandStarted(CommandStartedEvent event) {
        if (counted.test(Thread.currentThread())) {
            started.computeIfAbsent(event.getCommandName(), name -> new LongAdder()).increment();
            lastStartedNanos = System.nanoTime();
        }
    }

    @Override
    public void commandSucceeded(CommandSucceededEvent event) {
        if (counted.test(Thread.currentThread())) {
            addElapsed(event.getCommandName(), event.getElapsedTime(TimeUnit.NANOSECONDS));
            lastSucceededNanos = System.nanoTime();
        }
    }

    /**
     * A failed command took its round trip too: under contention most of an acquirer's upserts
     * fail with a duplicate key, and leaving them out would understate the mean time of a
     * findAndModify.
     */
    @Override
    public void commandFailed(CommandFailedEvent event) {
        if (counted.test(Thread.currentThread())) {
            addElapsed(event.getCommandName(), event.getElapsedTime(TimeUnit.NANOSECONDS));
        }
    }

    private void addElapsed(String command, long nanos) {
        elapsedTotal.add(nanos);
        elapsedNanos.computeIfAbsent(command, name -> new LongAdder()).add(nanos);
        LongAdder max = maxElapsedNanos.computeIfAbsent(command, name -> new LongAdder());
        synchronized (max) {
            if (nanos > max.sum()) {
                max.reset();
                max.add(nanos);
            }
        }
    }

    /** Commands started since the last reset, by name, sorted; the driver's own monitoring is not counted. */
    Map<String, Long> counts() {
        Map<String, Long> counts = new TreeMap<>();
        started.forEach((name, count) -> counts.put(name, count.sum()));
        return counts;
    }

    long count(String command) {
        LongAdder count = started.get(command);
        return count == null ? 0 : count.sum();
    }

    long total() {
        return started.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** Counted commands other than those named (e.g. all but the change stream's getMore). */
    long totalExcept(String... commands) {
        long total = total();
        for (String command : commands) {
            total -= count(command);
        }
        return total;
    }

    /** The driver-measured time of all counted commands so far (send to reply), never reset. */
    long elapsedTotalNanos() {
        return elapsedTotal.sum();
    }

    /** Mean driver-measured time of one command of that name since the last reset, in ms. */
    double meanElapsedMillis(String command) {
        LongAdder total = elapsedNanos.get(command);
        long count = count(command);
        return total == null || count == 0 ? Double.NaN : total.sum() / 1e6 / count;
    }

    long maxElapsedNanos(String command) {
        LongAdder max = maxElapsedNanos.get(command);
        return max == null ? 0 : max.sum();
    }

    long lastStartedNanos() {
        return lastStartedNanos;
    }

    long lastSucceededNanos() {
        return lastSucceededNanos;
    }

    void reset() {
        started.clear();
        elapsedNanos.clear();
        maxElapsedNanos.clear();
    }
}
