package io.github.mongolock.cdi;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** How a {@code @Locked} method's return type affects the lock: when it is released, and what a skipped call returns. */
enum ReturnKind {
    /** Any other type: released when the method returns; cannot be skipped. */
    VALUE,
    /** {@code void} or {@code Void}: released when the method returns; a skipped call returns {@code null}. */
    NOTHING,
    /** {@code Optional}: released when the method returns; a skipped call returns {@code Optional.empty()}. */
    OPTIONAL,
    /**
     * {@code CompletionStage} or {@code CompletableFuture}: released when the returned stage completes;
     * the caller gets the stage that completes after the release. A skipped call returns a completed
     * {@code CompletableFuture} with a {@code null} result, except a scheduled run of Jakarta Concurrency's
     * {@code @Asynchronous(runAt = ...)}, which gets {@code null}: any non-null value would end the schedule.
     */
    STAGE,
    /**
     * Another {@code CompletionStage} subtype: released when the returned stage completes, and that
     * very stage is returned (a dependent stage could not be cast to the declared type); cannot be skipped.
     */
    OWN_STAGE;

    static ReturnKind of(Class<?> returnType) {
        if (returnType == void.class || returnType == Void.class) {
            return NOTHING;
        }
        if (returnType == Optional.class) {
            return OPTIONAL;
        }
        if (returnType == CompletionStage.class || returnType == CompletableFuture.class) {
            return STAGE;
        }
        if (CompletionStage.class.isAssignableFrom(returnType)) {
            return OWN_STAGE;
        }
        return VALUE;
    }

    boolean skippable() {
        return this == NOTHING || this == OPTIONAL || this == STAGE;
    }

    boolean asynchronous() {
        return this == STAGE || this == OWN_STAGE;
    }

    /**
     * What a skipped call returns.
     *
     * @param scheduledRun whether the method is scheduled by Jakarta Concurrency's {@code @Asynchronous(runAt = ...)},
     *                     whose container ends the schedule when a run returns anything but {@code null}
     */
    Object nothing(boolean scheduledRun) {
        return switch (this) {
            case NOTHING -> null;
            case OPTIONAL -> Optional.empty();
            case STAGE -> scheduledRun ? null : CompletableFuture.completedFuture(null);
            case VALUE, OWN_STAGE -> throw new IllegalStateException(this + " cannot be skipped; checked at deployment");
        };
    }
}
