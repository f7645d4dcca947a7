package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockSession;
import io.github.mongolock.Locked;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import jakarta.annotation.Priority;
import jakarta.enterprise.concurrent.Asynchronous;
import jakarta.enterprise.concurrent.Schedule;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code @Locked(onBusy = SKIP)} on methods that Jakarta Concurrency 3.1 (Jakarta EE 11) runs on a schedule,
 * {@code @Asynchronous(runAt = @Schedule(...))}. Weld has no Concurrency, so {@link ConcurrencyStandIn} plays the
 * container's asynchronous interceptor as the {@code runAt} Javadoc describes it: priority
 * {@code PLATFORM_BEFORE + 5}, every run on the executor's thread, the schedule going on while a run returns
 * {@code null} and ending at the first non-null value or exception. Ticks are fired by the test, one at a time.
 */
@ExtendWith(MongoBackend.class)
@EnableWeld
class ScheduledAsynchronousTest {

    private static final String RUNNER = "concurrency-stand-in";

    @WeldSetup
    WeldInitiator weld;

    @Inject
    ScheduledReports reports;

    @Inject
    Ticks ticks;

    @Inject
    LockManager locks;

    ScheduledAsynchronousTest(TestMongo mongo) {
        weld = WeldInitiator.from(WeldInitiator.createWeld()
                        .addBeanClasses(ScheduledReports.class, Ticks.class, ConcurrencyStandIn.class)
                        .addExtension(new MongoLockExtension(WeldNodes.config(WeldNodes.settings(mongo, mongo.freshDatabase())))))
                .build();
    }

    @AfterEach
    void stopTheSchedule() {
        ticks.stop();
    }

    @Test
    void aSkippedRunOfAScheduledCompletableFutureMethodReturnsNullSoTheScheduleGoesOn() throws Exception {
        CompletableFuture<String> schedule = reports.report();
        try (LockSession otherInstance = locks.acquire("scheduled-report")) {
            assertEquals("returned null", ticks.fire(), "a busy tick is skipped with null (a completed future ends the schedule)");
        }
        assertFalse(schedule.isDone(), "the skipped tick did not end the schedule");
        assertEquals("returned null", ticks.fire());
        assertEquals("returned null", ticks.fire());
        assertEquals(List.of(RUNNER + " holdCount=1", RUNNER + " holdCount=1"), reports.runs(),
                "the two free ticks ran, on the asynchronous thread, inside the lock");
        assertEquals(List.of(true, false, false), ticks.lockHeldBeforeRun(), "held by the other instance at the first tick only;"
                + " free at the next ones until @Locked, inside @Asynchronous (PLATFORM_BEFORE + 5), took it on the asynchronous thread");
        assertFalse(schedule.isDone());
    }

    @Test
    void aSkippedRunOfAScheduledVoidMethodKeepsTheScheduleToo() throws Exception {
        reports.voidReport();
        try (LockSession otherInstance = locks.acquire("scheduled-void-report")) {
            assertEquals("returned null", ticks.fire());
        }
        assertEquals("returned null", ticks.fire());
        assertEquals(List.of(RUNNER + " holdCount=1"), reports.runs());
    }

    @Test
    void aRunThatCompletesTheResultStillEndsTheScheduleAfterTheRelease() throws Exception {
        reports.endAfterRuns(2);
        CompletableFuture<String> schedule = reports.report();
        assertEquals("returned null", ticks.fire());
        String last = ticks.fire();
        assertTrue(last.startsWith("ended by "), last);
        assertEquals("done", schedule.get(10, TimeUnit.SECONDS), "the container's future completes with the result");
        assertTrue(locks.inspect("scheduled-report").isEmpty(), "released");
    }

    @Test
    void anUnscheduledOperationStillSkipsWithACompletedFuture() {
        LockedOperations operations = weld.select(LockedOperations.class).get();
        assertTrue(operations.find(ScheduledReports.class, method("report")).orElseThrow().scheduledRun());
        assertTrue(operations.find(ScheduledReports.class, method("voidReport")).orElseThrow().scheduledRun());
        assertFalse(ScheduledAsynchronous.isScheduled(method("once")), "@Asynchronous without runAt runs once");
        assertEquals(CompletableFuture.class, ReturnKind.STAGE.nothing(false).getClass());
        assertEquals(null, ReturnKind.STAGE.nothing(true));
    }

    private static java.lang.reflect.Method method(String name) {
        try {
            return ScheduledReports.class.getMethod(name);
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }

    @ApplicationScoped
    public static class ScheduledReports {
        @Inject
        LockManager locks;

        private final List<String> runs = new CopyOnWriteArrayList<>();
        private volatile int endAfterRuns = Integer.MAX_VALUE;

        /** Each run's thread and hold count (through methods: the test holds a client proxy). */
        List<String> runs() {
            return runs;
        }

        void endAfterRuns(int runs) {
            endAfterRuns = runs;
        }

        @Asynchronous(runAt = @Schedule(cron = "*/10 * * * * *"))
        @Locked(value = "scheduled-report", onBusy = Locked.OnBusy.SKIP)
        public CompletableFuture<String> report() {
            runs.add(run("scheduled-report"));
            return runs.size() >= endAfterRuns ? Asynchronous.Result.complete("done") : null; // null: again at the next time
        }

        @Asynchronous(runAt = @Schedule(cron = "*/10 * * * * *"))
        @Locked(value = "scheduled-void-report", onBusy = Locked.OnBusy.SKIP)
        public void voidReport() {
            runs.add(run("scheduled-void-report"));
        }

        @Asynchronous
        @Locked(value = "once", onBusy = Locked.OnBusy.SKIP)
        public CompletableFuture<String> once() {
            return CompletableFuture.completedFuture("once");
        }

        private String run(String name) {
            LockInfo held = locks.inspect(name).orElseThrow(() -> new AssertionError(name + " is not held while the run runs"));
            return Thread.currentThread().getName() + " holdCount=" + held.holdCount();
        }
    }

    /** The test's clock: one tick at a time, and what each run returned. */
    @ApplicationScoped
    public static class Ticks {
        private final BlockingQueue<Boolean> fired = new LinkedBlockingQueue<>();
        private final BlockingQueue<String> outcomes = new LinkedBlockingQueue<>();
        private final List<Boolean> lockHeldBeforeRun = new CopyOnWriteArrayList<>();

        /** Whether the lock was held when the asynchronous interceptor was about to proceed, tick by tick. */
        List<Boolean> lockHeldBeforeRun() {
            return lockHeldBeforeRun;
        }

        void beforeRun(boolean lockHeld) {
            lockHeldBeforeRun.add(lockHeld);
        }

        /** Fires one tick and answers what that run did. */
        String fire() throws InterruptedException {
            fired.put(true);
            String outcome = outcomes.poll(10, TimeUnit.SECONDS);
            assertNotNull(outcome, "the scheduled method ran within 10 s of its tick (or the schedule had ended)");
            return outcome;
        }

        /** The runner's wait for the next tick; false when the test is over (or after 30 s without a tick). */
        boolean awaitTick() throws InterruptedException {
            return Boolean.TRUE.equals(fired.poll(30, TimeUnit.SECONDS));
        }

        void ran(String outcome) {
            outcomes.add(outcome);
        }

        void stop() {
            fired.add(false);
        }
    }

    /**
     * Jakarta Concurrency 3.1's asynchronous interceptor, for scheduled methods only, as the {@code Asynchronous.runAt}
     * Javadoc specifies it: the caller gets the schedule's future at once; each run happens on the executor's thread
     * with the same future in {@code Asynchronous.Result}; a run returning {@code null} runs again at the next time;
     * a non-null value (its completion completes the future) or an exception ends the schedule.
     */
    @Asynchronous
    @Interceptor
    @Priority(Interceptor.Priority.PLATFORM_BEFORE + 5)
    public static class ConcurrencyStandIn {
        @Inject
        Ticks ticks;

        @Inject
        LockManager locks;

        @AroundInvoke
        Object schedule(InvocationContext invocation) {
            assertTrue(invocation.getMethod().getAnnotation(Asynchronous.class).runAt().length > 0,
                    "the stand-in only runs scheduled methods");
            CompletableFuture<Object> schedule = new CompletableFuture<>();
            Thread runner = new Thread(() -> runAtEveryTick(invocation, schedule), RUNNER);
            runner.setDaemon(true);
            runner.start();
            return invocation.getMethod().getReturnType() == void.class ? null : schedule;
        }

        private void runAtEveryTick(InvocationContext invocation, CompletableFuture<Object> schedule) {
            String lockName = invocation.getMethod().getAnnotation(Locked.class).value()[0];
            try {
                while (!schedule.isDone() && ticks.awaitTick()) {
                    ticks.beforeRun(locks.inspect(lockName).isPresent());
                    Object value;
                    Asynchronous.Result.setFuture(schedule);
                    try {
                        value = invocation.proceed();
                    } catch (Exception | Error failure) {
                        schedule.completeExceptionally(failure);
                        ticks.ran("threw " + failure);
                        return;
                    } finally {
                        Asynchronous.Result.setFuture(null);
                    }
                    if (value == null) {
                        ticks.ran("returned null");
                    } else {
                        ((CompletionStage<?>) value).whenComplete((result, failure) -> {
                            if (failure != null) {
                                schedule.completeExceptionally(failure);
                            } else {
                                schedule.complete(result);
                            }
                        });
                        ticks.ran("ended by " + value);
                    }
                }
            } catch (InterruptedException stopped) {
                schedule.cancel(false);
            }
        }
    }
}
