package io.github.mongolock.examples.quarkus;

import io.github.mongolock.Locked;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Quarkus scheduled job that runs on one instance per tick: every instance's scheduler fires it, and
 * {@code SKIP} lets only the one that gets the lock run it; the minimum hold keeps a late timer of another
 * instance from running the same tick again.
 */
@ApplicationScoped
public class NightlyReport {

    public static final String LOCK = "nightly-report";

    private final AtomicInteger runs = new AtomicInteger();

    @Scheduled(every = "${example.report.every}", identity = LOCK)
    @Locked(value = LOCK, onBusy = Locked.OnBusy.SKIP, holdAtLeast = "PT0.2S")
    void run() {
        runs.incrementAndGet();
    }

    /** How often this instance ran the report. */
    public int runs() {
        return runs.get();
    }
}
