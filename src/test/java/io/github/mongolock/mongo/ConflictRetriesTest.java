package io.github.mongolock.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockConfigurationException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** {@link ConflictRetries}: what it accepts, the messages of what it refuses, and the pauses it draws. */
class ConflictRetriesTest {

    private static final Duration MS = Duration.ofMillis(1);

    @Test
    void attemptsOutOfRangeAreRefusedNamingTheValueAndTheRange() {
        assertRefused("maxAttempts 0 is out of range: it must be from 1 (one attempt, no retry) to 10000. Pass e.g. 10.",
                () -> new ConflictRetries(0, MS, MS));
        assertRefused("maxAttempts -3 is out of range", () -> ConflictRetries.defaults().withMaxAttempts(-3));
        assertRefused("maxAttempts 10001 is out of range", () -> new ConflictRetries(10_001, MS, MS));
        assertEquals(1, new ConflictRetries(1, MS, MS).maxAttempts());
        assertEquals(10_000, new ConflictRetries(10_000, MS, MS).maxAttempts());
    }

    @Test
    void backoffsMustBePositiveOrderedAndBounded() {
        assertRefused("firstBackoff PT0S is out of range: it must be positive and at most PT1M, e.g. PT0.005S.",
                () -> new ConflictRetries(3, Duration.ZERO, MS));
        assertRefused("firstBackoff PT-0.001S is out of range", () -> new ConflictRetries(3, MS.negated(), MS));
        assertRefused("firstBackoff null is out of range", () -> new ConflictRetries(3, null, MS));
        assertRefused("maxBackoff null is out of range: it must be positive and at most PT1M, e.g. PT0.5S.",
                () -> new ConflictRetries(3, MS, null));
        assertRefused("firstBackoff PT0.01S is longer than maxBackoff PT0.001S: the pauses grow from firstBackoff to"
                + " maxBackoff, so firstBackoff must be at most maxBackoff.",
                () -> ConflictRetries.defaults().withBackoff(Duration.ofMillis(10), MS));
        assertRefused("maxBackoff PT1M0.001S is out of range: it must be from firstBackoff (PT0.001S) to PT1M.",
                () -> new ConflictRetries(3, MS, Duration.ofMinutes(1).plus(MS)));
    }

    @Test
    void pausesDoubleFromTheFirstUpToTheMaximumWithJitterInTheUpperHalf() {
        ConflictRetries retries = new ConflictRetries(50, Duration.ofMillis(2), Duration.ofMillis(16));
        long[] ceilings = {2, 4, 8, 16, 16, 16};
        for (int conflicts = 1; conflicts <= ceilings.length; conflicts++) {
            long ceiling = Duration.ofMillis(ceilings[conflicts - 1]).toNanos();
            for (int draw = 0; draw < 200; draw++) {
                long pause = retries.pauseNanos(conflicts);
                assertTrue(pause >= ceiling / 2 && pause <= ceiling,
                        "pause " + pause + " ns after " + conflicts + " conflicts, expected within [" + ceiling / 2 + ", "
                                + ceiling + "]");
            }
        }
        assertTrue(retries.pauseNanos(10_000) <= Duration.ofMillis(16).toNanos(), "no overflow past the ramp");
        ConflictRetries longest = new ConflictRetries(10_000, Duration.ofMinutes(1), Duration.ofMinutes(1));
        assertTrue(longest.pauseNanos(10_000) >= Duration.ofSeconds(30).toNanos());
    }

    private static void assertRefused(String start, Executable call) {
        LockConfigurationException refused = assertThrows(LockConfigurationException.class, call);
        assertTrue(refused.getMessage().startsWith(start), refused.getMessage());
    }
}
