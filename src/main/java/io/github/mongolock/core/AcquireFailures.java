package io.github.mongolock.core;

import io.github.mongolock.LockInterruptedException;
import io.github.mongolock.LockTimeoutException;
import java.time.Duration;

/** The exceptions a failed acquire throws, each naming the lock and saying what to do. Stateless. */
final class AcquireFailures {

    private AcquireFailures() {
    }

    static LockTimeoutException timeout(String name, Duration wait, FreshAttempts.Outcome busy) {
        StringBuilder message = new StringBuilder("Lock \"").append(name).append("\" was not acquired within ")
                .append(wait).append(": it is held by ").append(busy.holder().orElse("another owner"));
        if (busy.takeoverDueIn() != null) {
            message.append(", which can be taken over in ").append(busy.takeoverDueIn())
                    .append(" if it stays unrenewed until then");
        }
        message.append(". Wait longer, or use tryAcquire to go on without the lock.");
        return new LockTimeoutException(name, message.toString());
    }

    /** Keeps the interrupt flag, which the caller's caller may want to see. */
    static LockInterruptedException interrupted(String name, InterruptedException cause) {
        Thread.currentThread().interrupt();
        return new LockInterruptedException("Interrupted while waiting for lock \"" + name
                + "\"; nothing was acquired and the interrupt flag is kept.", cause);
    }
}
