package io.github.mongolock.examples.jobs;

import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.Locked;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;
import org.bson.Document;

/**
 * The scheduled-job case: every instance of the application has this timer; at each tick the one
 * that gets the lock runs the report and the others skip.
 *
 * <p>{@code onBusy = SKIP} (with no wait time) skips at once when another instance holds the lock.
 * That prevents concurrent runs. To get exactly one run per tick, {@code holdAtLeast} keeps the lock
 * taken for 7 s after the grant even though the job takes milliseconds (what ShedLock calls "lock at
 * least for"): an instance whose timer fires late for the same tick still finds it taken. The lock
 * document carries the hold, so it lasts even if this server stops right after the run. Pick it
 * longer than your timers can drift apart and shorter than the period.
 */
@Singleton
public class NightlyReport {

    static final long PERIOD_MS = 10_000;

    @Inject
    ExampleData data;

    @Inject
    LockManager locks;

    @Schedule(second = "*/10", minute = "*", hour = "*", persistent = false)
    @Locked(value = "nightly-report", onBusy = Locked.OnBusy.SKIP, holdAtLeast = "PT7S")
    public void run() {
        // The tick this run belongs to: timers fire at :00, :10, ... and less than a period late.
        long tick = System.currentTimeMillis() / PERIOD_MS;
        String holder = locks.inspect("nightly-report").map(LockInfo::owner).orElse("nobody");
        data.reportRuns().insertOne(new Document("tick", tick).append("server", data.serverName())
                .append("at", System.currentTimeMillis()).append("lockHolder", holder));
        // The report's work would go here. No sleep: holdAtLeast keeps the lock until the tick is safely over.
    }
}
