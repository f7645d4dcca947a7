package io.github.mongolock.core;

import java.util.function.Consumer;

/**
 * Pushes "lock N is free now" notices from the store, so waiters on locks released by other
 * machines wake at once instead of at their next backoff deadline. Purely an accelerator: waiters
 * keep polling with backoff, so a feed that is unavailable, late or lossy never affects safety or
 * liveness, only latency.
 *
 * <p>The coordinator starts the feed lazily, when one of its threads first waits for a lock held
 * elsewhere; a manager that never contends never opens one. One feed per manager, never per waiter.
 */
public interface ReleaseFeed extends AutoCloseable {

    /** What the feed is doing; for logs, health and tests. */
    enum Status { IDLE, STARTING, PUSHING, RECONNECTING, UNAVAILABLE, CLOSED }

    /** A feed that never pushes: waiters rely on polling alone. */
    ReleaseFeed NONE = new ReleaseFeed() {
        @Override
        public void start(Consumer<String> released) {
        }

        @Override
        public Status status() {
            return Status.UNAVAILABLE;
        }

        @Override
        public void close() {
        }
    };

    /** Begins delivering lock names to {@code released}, asynchronously; idempotent and non-blocking. */
    void start(Consumer<String> released);

    Status status();

    @Override
    void close();
}
