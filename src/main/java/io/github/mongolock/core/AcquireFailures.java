package io.github.mongolock.core;

import io.github.mongolock.LockInterruptedException;
import io.github.mongolock.LockTimeoutException;
import java.time.Duration;

/** The exceptions an acquire that got nothing ends with, saying what was seen and what to do. Stateless. */
final class AcquireFailures {

    private AcquireFailures() {
    }

    /** The wait ended with the lock still held: by whom, and when a takeover would be due. */
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

    /** Interrupted while waiting: the flag is set again, so the caller still sees it. */
    static LockInterruptedException interrupted(String name, InterruptedException cause) {
        Thread.currentThread().interrupt();
        return new LockInterruptedException("Interrupted while waiting for lock \"" + name
                + "\"; nothing was acquired and the interrupt flag is kept.", cause);
    }
}
