package io.github.mongolock.examples.jobs;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * Lets a test (or you, with {@code POST /api/ticks/handicap?seconds=...}) decide which instance wins the next
 * ticks of {@link TickReport}: while handicapped, this instance's scheduled calls wait {@link #DELAY_MS} before
 * trying the lock, so another instance takes it first and this one skips. Thread-safe.
 */
@ApplicationScoped
public class TickHandicap {

    static final long DELAY_MS = 1_000;

    private volatile long untilMillis;

    public void handicapFor(long seconds) {
        untilMillis = System.currentTimeMillis() + seconds * 1_000;
    }

    /** Waits {@link #DELAY_MS} while handicapped; answers whether it did. */
    boolean delayIfHandicapped() throws InterruptedException {
        if (System.currentTimeMillis() >= untilMillis) {
            return false;
        }
        Thread.sleep(DELAY_MS);
        return true;
    }
}
