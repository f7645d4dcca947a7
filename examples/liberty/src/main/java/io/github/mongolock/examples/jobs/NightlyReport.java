package io.github.mongolock.examples.jobs;

import io.github.mongolock.Locked;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Timer;
import jakarta.inject.Inject;
import org.bson.Document;

/**
 * The scheduled-job case: every instance of the application has this timer; at each tick the one
 * that gets the lock runs the report and the others skip.
 *
 * <p>{@code onBusy = SKIP} prevents concurrent runs. To get exactly one run per tick, the job also
 * keeps the lock until {@link #HOLD_MS} after the tick's scheduled time (what ShedLock calls "lock at
 * least for"): an instance whose timer fires late for the same tick still finds the lock taken.
 * Pick the hold time longer than your timers can drift apart and shorter than the period.
 */
@Singleton
public class NightlyReport {

    static final long PERIOD_MS = 10_000;
    static final long HOLD_MS = 7_000;

    @Inject
    ExampleData data;

    @Schedule(second = "*/10", minute = "*", hour = "*", persistent = false)
    @Locked(value = "nightly-report", onBusy = Locked.OnBusy.SKIP)
    public void run(Timer timer) {
        long scheduledFor = timer.getNextTimeout().getTime() - PERIOD_MS;
        long tick = Math.round(scheduledFor / (double) PERIOD_MS);
        data.reportRuns().insertOne(new Document("tick", tick).append("server", data.serverName())
                .append("at", System.currentTimeMillis()));
        // The report's work would go here; then hold the lock until the tick is safely over.
        long holdFor = scheduledFor + HOLD_MS - System.currentTimeMillis();
        if (holdFor > 0) {
            try {
                Thread.sleep(holdFor);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
