package io.github.mongolock.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The wall clock as mongo-java-server sees it in the stepped-clock stand-in's JVM: the real time plus an
 * offset that the test sets, to the nanosecond. {@link WallClockRedirectingClassLoader} points every read of
 * the wall clock in mongo-java-server's classes here; the JDK, Netty and the rest of that JVM keep the real
 * clock, and nothing here touches the monotonic clock ({@code System.nanoTime}) or timed waits, which the
 * JVM and Netty need real.
 *
 * <p>The offset is static because the rewritten call sites are static calls with no object to reach it
 * through. It exists only in the stand-in's JVM ({@link SteppedClockStandIn#main}), where one thread (the one
 * reading the test's commands) writes it and every request thread reads it; volatile makes a new offset
 * visible to the next read on any thread.
 *
 * <p>The methods are public because the rewritten classes live in another class loader, hence another
 * run-time package.
 */
public final class SteppedWallClock {

    private static volatile long offsetNanos;

    private SteppedWallClock() {
    }

    static void setOffset(Duration offset) {
        offsetNanos = offset.toNanos();
    }

    /** Stands in for {@code Instant.now()}. */
    public static Instant instant() {
        return Instant.now().plusNanos(offsetNanos);
    }

    /** Stands in for {@code System.currentTimeMillis()}, and for the time {@code new Date()} takes. */
    public static long currentTimeMillis() {
        return instant().toEpochMilli();
    }

    /** Stands in for {@code Clock.systemUTC()}. */
    public static Clock systemUTC() {
        return new Stepped(ZoneOffset.UTC);
    }

    /** Stands in for {@code Clock.systemDefaultZone()}, and for the clock behind the no-argument {@code now()} of java.time. */
    public static Clock systemDefaultZone() {
        return new Stepped(ZoneId.systemDefault());
    }

    /** Stands in for {@code Clock.system(zone)}, and for the clock behind {@code now(zone)} of java.time. */
    public static Clock system(ZoneId zone) {
        return new Stepped(zone);
    }

    /** A clock that reads the offset at every call, so a clock kept by the server (its backend's) follows each step. */
    private static final class Stepped extends Clock {
        private final ZoneId zone;

        Stepped(ZoneId zone) {
            this.zone = zone;
        }

        @Override
        public ZoneId getZone() {
            return zone;
        }

        @Override
        public Clock withZone(ZoneId newZone) {
            return new Stepped(newZone);
        }

        @Override
        public Instant instant() {
            return SteppedWallClock.instant();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Stepped stepped && zone.equals(stepped.zone);
        }

        @Override
        public int hashCode() {
            return zone.hashCode() + 1;
        }

        @Override
        public String toString() {
            return "SteppedWallClock[" + zone + "]";
        }
    }
}
