package io.github.mongolock.torture;

/**
 * An {@code acquire} that threw instead of returning a session.
 *
 * @param kind     {@code TIMEOUT} (lock busy), {@code STORE} ({@link io.github.mongolock.LockStoreException}),
 *                 {@code CLOSED} (the lock manager was closed) or the simple name of another exception
 * @param askedAt  when the call began (nanoTime)
 * @param failedAt when it threw (nanoTime)
 */
record AcquireFailure(String process, String lock, String kind, long askedAt, long failedAt) {

    static final String CLOSED = "CLOSED";

    long durationNanos() {
        return failedAt - askedAt;
    }
}
