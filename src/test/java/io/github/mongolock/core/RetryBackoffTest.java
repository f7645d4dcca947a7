package io.github.mongolock.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryBackoffTest {

    private final RetryBackoff backoff = RetryBackoff.standard();

    @Test
    void growsFromTenMillisecondsWithJitterInTheUpperHalf() {
        for (int i = 0; i < 200; i++) {
            long first = backoff.pauseNanos(0, null, false);
            assertTrue(first >= Duration.ofMillis(5).toNanos() && first <= Duration.ofMillis(10).toNanos(), first + " ns");
            long third = backoff.pauseNanos(2, null, false);
            assertTrue(third >= Duration.ofMillis(20).toNanos() && third <= Duration.ofMillis(40).toNanos(), third + " ns");
        }
    }

    @Test
    void pollsAtMostEvery500MillisecondsAndUpTo2SecondsWhilePushed() {
        for (int i = 0; i < 200; i++) {
            long polled = backoff.pauseNanos(30, null, false);
            assertTrue(polled >= Duration.ofMillis(250).toNanos() && polled <= Duration.ofMillis(500).toNanos(), polled + " ns");
            long pushed = backoff.pauseNanos(30, null, true);
            assertTrue(pushed >= Duration.ofSeconds(1).toNanos() && pushed <= Duration.ofSeconds(2).toNanos(), pushed + " ns");
            assertTrue(backoff.pauseNanos(0, null, true) <= Duration.ofMillis(10).toNanos(),
                    "the first short steps stay, pushed or not");
        }
    }

    @Test
    void neverSleepsFarPastTheHoldersRemainingLease() {
        for (int i = 0; i < 200; i++) {
            long pause = backoff.pauseNanos(30, Duration.ofMillis(40), true);
            assertTrue(pause <= Duration.ofMillis(42).toNanos(), pause + " ns");
        }
    }
}
