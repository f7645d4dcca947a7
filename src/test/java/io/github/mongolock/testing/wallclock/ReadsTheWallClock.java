package io.github.mongolock.testing.wallclock;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Date;

/**
 * Reads the wall clock in each way {@code WallClockRedirectingClassLoader} redirects, and the monotonic
 * clock, which it must leave alone: {@code SteppedClockStandInTest} loads this package through that loader
 * and checks that every reading follows the offset. A package of its own, because the loader rewrites whole
 * packages.
 */
public final class ReadsTheWallClock {

    private ReadsTheWallClock() {
    }

    public static Instant instantNow() {
        return Instant.now();
    }

    public static Instant currentTimeMillis() {
        return Instant.ofEpochMilli(System.currentTimeMillis());
    }

    public static Instant newDate() {
        return new Date().toInstant();
    }

    public static Instant localDateTimeNow() {
        return LocalDateTime.now().atZone(ZoneId.systemDefault()).toInstant();
    }

    public static Instant zonedDateTimeNowInZone() {
        return ZonedDateTime.now(ZoneId.of("Asia/Tokyo")).toInstant();
    }

    public static Instant clockSystemUtc() {
        return Clock.systemUTC().instant();
    }

    public static Instant clockSystemDefaultZone() {
        return Instant.ofEpochMilli(Clock.systemDefaultZone().millis());
    }

    public static Instant clockSystemInZone() {
        return Clock.system(ZoneId.of("Asia/Tokyo")).instant();
    }

    public static long nanoTime() {
        return System.nanoTime();
    }
}
