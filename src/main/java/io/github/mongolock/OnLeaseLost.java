package io.github.mongolock;

/**
 * What happens to the work protected by a lock when its lease is found lost (a renewal found another
 * owner, or the lease went unconfirmed for a whole lease time). In every case the session's
 * {@link LockSession#isHeld()} turns false, a {@link LockEvent.Kind#LEASE_LOST} event is delivered and
 * the session's {@code close()} throws {@link LockLostException}; the policies differ in what else is
 * done to the work still running.
 */
public enum OnLeaseLost {
    /** Report only (the default): the work runs on; check {@link LockSession#isHeld()} where it matters. */
    REPORT,
    /**
     * Also interrupt the thread the hold is bound to when the loss is found (the thread that acquired
     * it, or the one it was {@linkplain LockSession#attach() attached} to; a detached hold interrupts
     * nobody). Code blocked in an interruptible call (I/O on an interruptible channel, {@code sleep},
     * {@code wait}, a lock, a MongoDB driver call) stops with that call's exception; code that never
     * checks the flag runs on. Opt-in, since interrupts surprise code that was not written for them.
     */
    INTERRUPT,
    /**
     * For {@code @Locked} methods returning a {@code CompletionStage} or {@code CompletableFuture} only:
     * also cancel the stage the caller received, at once and whatever MongoDB is doing (the lock's clean-up
     * runs in the background), then the one the method returned ({@code toCompletableFuture().cancel(true)});
     * both then complete with a {@link java.util.concurrent.CancellationException};
     * stages depending on them do not run. A task already computing the stage's value is not interrupted
     * by that ({@code CompletableFuture.cancel} never interrupts). With a {@link LockSession}, register
     * your own action instead: {@link LockSession#onLeaseLost(Runnable)}.
     */
    CANCEL
}
