package io.github.mongolock.core;

/**
 * Pushes "lock N is free now" notices from the store, so waiters on locks released by other
 * machines wake at once instead of at their next backoff deadline. Purely an accelerator: waiters
 * keep polling with backoff, so a feed that is unavailable, late or lossy never affects safety or
 * liveness, only latency.
 *
 * <p>The coordinator starts the feed lazily, when one of its threads first waits for a lock held
 * elsewhere, and calls {@link #start} again on every such wait (a cheap nudge for a feed that idles).
 * A manager that never contends never opens one. One feed per manager, never per waiter.
 */
public interface ReleaseFeed extends AutoCloseable {

    /** What the feed is doing; for logs, health and tests. */
    enum Status { IDLE, STARTING, PUSHING, RECONNECTING, UNAVAILABLE, CLOSED }

    /** Where the feed delivers; implemented by the coordinator. */
    interface Listener {
        /**
         * {@code name} was just left free.
         *
         * @param queueHead the manager whose turn it is, when the notice carries the lock's queue (only a
         *                  looked-up document does); null when unknown
         */
        void released(String name, String queueHead);

        /**
         * Permits of the semaphore {@code name} were just given back, taken back, or a queue place was given up.
         * Semaphore names are their own namespace: a lock of the same name is another thing. A feed that cannot tell
         * semaphores apart never calls it, and waiters for permits poll.
         *
         * @param queueHead the manager whose turn it is, when the notice carries the semaphore's queue; null when unknown
         */
        default void permitsReleased(String name, String queueHead) {
        }

        /** As {@link #permitsReleased}, for the read-write lock {@code name} (a namespace of its own). */
        default void readWriteReleased(String name, String queueHead) {
        }

        /** Notices may have been missed (the stream was reopened without history): every waiter should look once. */
        void missedSome();

        /** Whether anyone waits at all: a feed may idle more cheaply while nobody does. */
        boolean anyoneWaiting();
    }

    /** A feed that never pushes: waiters rely on polling alone. */
    ReleaseFeed NONE = new ReleaseFeed() {
        @Override
        public void start(Listener listener) {
        }

        @Override
        public Status status() {
            return Status.UNAVAILABLE;
        }

        @Override
        public void close() {
        }
    };

    /**
     * Begins delivering to {@code listener}, asynchronously; later calls (with the same listener) only
     * tell a running feed that someone waits now. Non-blocking.
     */
    void start(Listener listener);

    Status status();

    @Override
    void close();
}
