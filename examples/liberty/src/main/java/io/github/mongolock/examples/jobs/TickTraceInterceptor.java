package io.github.mongolock.examples.jobs;

import io.github.mongolock.LockManager;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import org.bson.Document;

/**
 * Between Concurrency's {@code @Asynchronous} (PLATFORM_BEFORE + 5) and {@code @Locked} (PLATFORM_BEFORE + 100):
 * called once per scheduled run on the executor's thread, before {@code @Locked} decides to run or skip. Writes
 * one document per attempt: tick, server, thread, whether the lock was held by anyone just before, whether
 * {@link TickHandicap} delayed it, and what the run returned to the scheduler ({@code null} keeps the schedule going).
 */
@TickTrace
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 50)
public class TickTraceInterceptor {

    @Inject
    ExampleData data;

    @Inject
    LockManager locks;

    @Inject
    TickHandicap handicap;

    @AroundInvoke
    Object trace(InvocationContext invocation) throws Exception {
        long tick = System.currentTimeMillis() / TickReport.PERIOD_MS;
        boolean handicapped = handicap.delayIfHandicapped();
        boolean heldBefore = locks.inspect("tick-report").isPresent();
        Object returned;
        try {
            returned = invocation.proceed();
        } catch (Exception | Error failure) {
            record(tick, heldBefore, handicapped, "threw " + failure); // a throw ends the schedule: worth seeing
            throw failure;
        }
        record(tick, heldBefore, handicapped, String.valueOf(returned));
        return returned;
    }

    private void record(long tick, boolean heldBefore, boolean handicapped, String returned) {
        data.tickAttempts().insertOne(new Document("tick", tick).append("server", data.serverName())
                .append("at", System.currentTimeMillis()).append("thread", Thread.currentThread().getName())
                .append("lockHeldBefore", heldBefore).append("handicapped", handicapped).append("returned", returned));
    }
}
