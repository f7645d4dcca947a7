package io.github.mongolock.benchmark;

import io.github.mongolock.MongoLockManager;

/**
 * How a manager's waiters learn that a lock held by another process was released: a change-stream
 * push ({@code pushWakeUp(true)}, the default) or polling with backoff only ({@code pushWakeUp(false)}).
 */
enum WakeUpMode {
    PUSH("push"), POLL("polling");

    final String label;

    WakeUpMode(String label) {
        this.label = label;
    }

    MongoLockManager.Builder apply(MongoLockManager.Builder builder) {
        return builder.pushWakeUp(this == PUSH);
    }
}
