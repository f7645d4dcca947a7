package io.github.mongolock.examples.helidon;

import io.github.mongolock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A job that every instance starts (from a timer, a queue, an HTTP call) and only one should run at a time:
 * {@code SKIP} returns at once, without running, while another instance holds the lock. Helidon MP has no EJB
 * timers; a Helidon {@code @Scheduled} method or any other trigger can call this.
 */
@ApplicationScoped
public class Reports {

    public static final String LOCK = "daily-report";

    private final AtomicInteger runs = new AtomicInteger();

    @Locked(value = LOCK, onBusy = Locked.OnBusy.SKIP)
    public void run() {
        runs.incrementAndGet();
    }

    /** How often this instance ran the report. */
    public int runs() {
        return runs.get();
    }
}
