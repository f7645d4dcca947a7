package io.github.mongolock.benchmark;

import io.github.mongolock.MongoLockManager;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * How a manager's waiters learn that a lock held on another machine was released: a change-stream
 * push, or polling with backoff only. Set through {@code MongoLockManager.Builder.pushWakeUp(boolean)},
 * looked up reflectively so the benchmark also measures builds of the library that predate it
 * (they poll only, and the push rows are reported as not available).
 */
enum WakeUpMode {
    PUSH("push"), POLL("polling");

    private static final Method PUSH_WAKE_UP = find();

    final String label;

    WakeUpMode(String label) {
        this.label = label;
    }

    static boolean pushAvailable() {
        return PUSH_WAKE_UP != null;
    }

    MongoLockManager.Builder apply(MongoLockManager.Builder builder) {
        if (PUSH_WAKE_UP == null) {
            if (this == PUSH) {
                throw new IllegalStateException("This build of mongolock has no pushWakeUp(boolean): push cannot be measured.");
            }
            return builder; // polling is all such a build does
        }
        try {
            return (MongoLockManager.Builder) PUSH_WAKE_UP.invoke(builder, this == PUSH);
        } catch (IllegalAccessException | InvocationTargetException failed) {
            throw new IllegalStateException("pushWakeUp(" + (this == PUSH) + ") failed: " + failed, failed);
        }
    }

    private static Method find() {
        try {
            return MongoLockManager.Builder.class.getMethod("pushWakeUp", boolean.class);
        } catch (NoSuchMethodException absent) {
            return null;
        }
    }
}
