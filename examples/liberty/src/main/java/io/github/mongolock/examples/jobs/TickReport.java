package io.github.mongolock.examples.jobs;

import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.Locked;
import jakarta.enterprise.concurrent.Asynchronous;
import jakarta.enterprise.concurrent.Schedule;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.inject.Inject;
import java.util.concurrent.CompletableFuture;
import org.bson.Document;

/**
 * The scheduled job of Jakarta EE 11, without EJBs: Jakarta Concurrency 3.1 runs this plain CDI bean method every
 * 5 s on every instance, from the application's start ({@code @Observes Startup}) on; {@code @Locked} lets one
 * instance run each tick and the others skip, as {@link NightlyReport} does with an EJB timer.
 *
 * <p>The interceptors nest by priority: Concurrency's {@code @Asynchronous} (PLATFORM_BEFORE + 5) submits every
 * run to the managed executor; on that thread {@link TickTrace} (PLATFORM_BEFORE + 50) records the attempt, then
 * {@code @Locked} (PLATFORM_BEFORE + 100) takes the lock or skips. A skipped run returns {@code null}, which keeps
 * the schedule going: any non-null value, like an exception, ends it ({@code Asynchronous.runAt}). So do not let
 * this method throw, and return {@code Asynchronous.Result.complete(...)} only to stop the schedule for good.
 */
@ApplicationScoped
public class TickReport {

    static final long PERIOD_MS = 5_000;

    @Inject
    ExampleData data;

    @Inject
    LockManager locks;

    @TickTrace
    @Asynchronous(runAt = @Schedule(cron = "*/5 * * * * *"))
    @Locked(value = "tick-report", onBusy = Locked.OnBusy.SKIP, holdAtLeast = "PT3S")
    public CompletableFuture<Void> run(@Observes Startup applicationStarted) {
        long tick = System.currentTimeMillis() / PERIOD_MS;
        String holder = locks.inspect("tick-report").map(LockInfo::owner).orElse("nobody");
        data.tickRuns().insertOne(new Document("tick", tick).append("server", data.serverName())
                .append("at", System.currentTimeMillis()).append("lockHolder", holder)
                .append("thread", Thread.currentThread().getName()));
        return null; // null: run again at the next scheduled time
    }
}
