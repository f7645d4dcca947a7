package io.github.mongolock.examples.helidon;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Waits, polling, for what the application does on its own threads (elections). */
final class Await {

    private Await() {
    }

    /** Returns once {@code condition} holds; fails naming {@code what} after 15 s. */
    static void until(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 15 s: " + what);
            }
            Thread.sleep(50);
        }
    }
}
