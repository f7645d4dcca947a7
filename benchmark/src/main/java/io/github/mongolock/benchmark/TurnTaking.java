package io.github.mongolock.benchmark;

import io.github.mongolock.LockSession;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.MongoLockManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * A worker's side of case 7: threads of one manager take turns on one lock name until a deadline,
 * and every acquire call is logged (which thread, granted or timed out, when it returned, how long
 * it waited). The benchmark merges the logs of both workers by return time into one history of
 * grants. Each thread logs into a list of its own, so logging adds no contention of its own.
 *
 * <p>Return times order the grants exactly: the next grant can only be made after the previous
 * holder's close(), which comes after its acquire returned.
 */
final class TurnTaking {

    /**
     * What the threads do, from a {@code TURNS} command.
     *
     * @param tryFirst as the quick start does: {@code tryAcquire} first, {@code acquire} only when busy
     */
    record Plan(String name, int threads, long millis, long waitMillis, long holdMillis, long pauseMillis,
                boolean tryFirst, long startAt) {

        /** {@code threads millis waitMillis holdMillis pauseMillis try|acquire startNanos}. */
        static Plan parse(String name, String[] args) {
            return new Plan(name, Integer.parseInt(args[0]), Long.parseLong(args[1]), Long.parseLong(args[2]),
                    Long.parseLong(args[3]), Long.parseLong(args[4]), "try".equals(args[5]), Long.parseLong(args[6]));
        }

        String command(WakeUpMode mode) {
            return String.join(" ", "TURNS", mode.name(), name, String.valueOf(threads), String.valueOf(millis),
                    String.valueOf(waitMillis), String.valueOf(holdMillis), String.valueOf(pauseMillis),
                    tryFirst ? "try" : "acquire", String.valueOf(startAt));
        }
    }

    private TurnTaking() {
    }

    /**
     * Runs the plan and answers the body of the RESULT line: {@code elapsedMs=.. commands={..}
     * commandMeanMs={..} turns=thread:g|f|t:returnNanos:waitMicros,...} ({@code g} granted,
     * {@code f} granted by {@code tryAcquire} at once, {@code t} timed out). Calls started before the
     * deadline run to their end, up to the wait time.
     */
    static String run(MongoLockManager manager, Plan plan, CommandCounter counter) throws InterruptedException {
        long endAt = plan.startAt() + plan.millis() * 1_000_000L;
        Duration wait = Duration.ofMillis(plan.waitMillis());
        List<List<String>> logs = new ArrayList<>();
        List<Thread> running = new ArrayList<>();
        while (System.nanoTime() < plan.startAt() - 1_000_000) {
            Thread.sleep(1);
        }
        counter.reset();
        for (int t = 0; t < plan.threads(); t++) {
            List<String> log = new ArrayList<>();
            logs.add(log);
            int thread = t;
            Thread runner = new Thread(() -> {
                while (System.nanoTime() < plan.startAt()) {
                    Thread.onSpinWait();
                }
                while (System.nanoTime() < endAt) {
                    long calledAt = System.nanoTime();
                    LockSession session = null;
                    boolean atOnce = false;
                    try {
                        if (plan.tryFirst()) {
                            session = manager.tryAcquire(plan.name()).orElse(null);
                            atOnce = session != null;
                        }
                        if (session == null) {
                            session = manager.acquire(plan.name(), wait);
                        }
                    } catch (LockTimeoutException late) {
                        // logged below as a timed-out call; the next call starts at once
                    }
                    long returnedAt = System.nanoTime();
                    log.add(thread + ":" + (atOnce ? "f" : session != null ? "g" : "t") + ":" + returnedAt + ":"
                            + (returnedAt - calledAt) / 1_000);
                    if (session != null) {
                        sleep(plan.holdMillis());
                        session.close();
                    }
                    sleep(plan.pauseMillis());
                }
            }, "turns-" + t);
            runner.start();
            running.add(runner);
        }
        for (Thread runner : running) {
            runner.join();
        }
        long elapsed = System.nanoTime() - plan.startAt();
        StringJoiner turns = new StringJoiner(",");
        logs.forEach(log -> log.forEach(turns::add));
        StringJoiner means = new StringJoiner(",", "{", "}");
        counter.counts().keySet().forEach(command -> means.add(command + "="
                + String.format(Locale.ROOT, "%.3f", counter.meanElapsedMillis(command))));
        return String.format(Locale.ROOT, "elapsedMs=%d commands=%s commandMeanMs=%s turns=%s", elapsed / 1_000_000,
                counter.counts().toString().replace(" ", ""), means, turns);
    }

    private static void sleep(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException interrupted) {
            // Nobody interrupts these threads; keep the flag for whoever looks.
            Thread.currentThread().interrupt();
        }
    }
}
