package io.github.mongolock.torture;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockSession;
import io.github.mongolock.PermitHold;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the long run of PERMITS_KILL met (2026-11-29: a killed holder's permit of {@code sem-1} granted again 7.1 s and
 * 5.1 s after its SIGSTOP, waiters there all along, bound 2.3 s), reduced to its cause: a waiter's sightings of the
 * holding sessions live in one acquire call ({@code PermitCoordinator.acquire}'s local {@code watched} map) and are
 * lost when the call ends. A lock's are kept per name for the coordinator's lifetime, across calls
 * ({@code LeaseWatch}: "so that a tryAcquire retried every minute by a scheduled job also takes a dead holder's lock
 * over"). So a dead holder's permits come back only once one acquire call happens to wait a whole lease + 3 % without
 * being granted: under churn of the other permits, every waiter is served before that and the dead permit stays
 * (the long run's 5-7 s), and callers that only {@code tryAcquire()} never take it back at all.
 *
 * <p>Here a holder's renewals stop (its process "dead"), and another manager calls {@code tryAcquire()} every 100 ms.
 * The lock's case passes; <b>the permit's case fails on the branch as it is</b> (a production divergence, reported,
 * not fixed here: src/main is others' work in progress).
 */
@ExtendWith(MongoBackend.class)
class RetriedTryAcquireTest {

    private static final Duration LEASE = Duration.ofSeconds(1);
    /** Lease + 3 %, a poll and a second of slack for a loaded machine. */
    private static final Duration WITHIN = Duration.ofMillis(3_000);

    private final DeadAndLiveManagers managers;

    RetriedTryAcquireTest(TestMongo mongo) {
        managers = new DeadAndLiveManagers(mongo, LEASE, Duration.ofSeconds(5));
    }

    @AfterEach
    void close() {
        managers.close();
    }

    @Test
    void aRetriedTryAcquireTakesADeadHoldersLockOver() {
        managers.dead.acquire("job");
        managers.dying.die();
        Optional<LockSession> got = retry(() -> managers.other.tryAcquire("job"));
        assertTrue(got.isPresent(), "no tryAcquire within " + WITHIN.toMillis() + " ms took the dead holder's lock over");
        got.get().close();
    }

    @Test
    void aRetriedTryAcquireTakesADeadHoldersPermitsBack() {
        managers.dead.permits("export", 1).acquire();
        managers.dying.die();

        Optional<PermitHold> got = retry(() -> managers.other.permits("export", 1).tryAcquire());
        assertTrue(got.isPresent(), "no tryAcquire within " + WITHIN.toMillis() + " ms took the dead holder's permit back"
                + " (a lock's waiter keeps its sightings across calls; a semaphore's forgets them when each call ends)");
        got.get().close();
    }

    private static <T> Optional<T> retry(Supplier<Optional<T>> attempt) {
        long begin = System.nanoTime();
        long giveUp = begin + WITHIN.toNanos();
        while (System.nanoTime() - giveUp < 0) {
            Optional<T> got = attempt.get();
            if (got.isPresent()) {
                System.out.printf("[retried tryAcquire] got it after %d ms%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
                return got;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(100);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
        return Optional.empty();
    }
}
