package io.github.mongolock.torture;

import io.github.mongolock.LockException;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.LockTimeoutException;

/**
 * An {@code acquire} that threw instead of returning a session.
 *
 * @param kind     {@code TIMEOUT} (lock busy), {@code STORE} ({@link io.github.mongolock.LockStoreException}),
 *                 {@code CLOSED} (the lock manager was closed) or the simple name of another exception; {@link #BUSY}
 *                 marks no failure but the moment a permits or read-write call was first told busy, before it waited
 * @param askedAt  when the call began (nanoTime)
 * @param failedAt when it threw (nanoTime)
 */
record AcquireFailure(String process, String lock, String kind, long askedAt, long failedAt) {

    static final String CLOSED = "CLOSED";
    /**
     * Not a failure: the first attempt of a permits or read-write call (a {@code tryAcquire}, {@code tryRead} or
     * {@code tryWrite}) found too few permits free, or another manager's turn, and the call went on to wait; its
     * {@code failedAt} is when it was told. The regrant's "first waiter" is the first call told busy (PermitsChecker).
     */
    static final String BUSY = "BUSY";

    /**
     * The kind an acquire's failure is recorded as: {@code timeoutKind} for a timeout, {@code STORE} for a store
     * failure, else the exception's simple name.
     */
    static String kindOf(LockException failure, String timeoutKind) {
        return failure instanceof LockTimeoutException ? timeoutKind
                : failure instanceof LockStoreException ? "STORE" : failure.getClass().getSimpleName();
    }

    boolean toldBusy() {
        return BUSY.equals(kind);
    }

    long durationNanos() {
        return failedAt - askedAt;
    }
}
