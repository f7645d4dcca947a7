package io.github.mongolock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The waiter's lease rule on a hand-driven clock: elapsed time since the first sighting of an unchanged state. */
class LeaseWatchTest {

    private static final Duration LEASE = Duration.ofSeconds(10);
    private static final long TAKEOVER = Duration.ofMillis(10_300).toNanos(); // lease + 3 %
    private final LeaseWatch watch = new LeaseWatch();

    private static Sighting seen(Object state) {
        return new Sighting(state, "holder", LEASE, false);
    }

    @Test
    void anUnchangedStateIsTakenOverOneLeasePlusTheMarginAfterItWasFirstSeen() {
        assertEquals(TAKEOVER, watch.untilTakeover("job", seen("v1"), 1_000));
        assertEquals(TAKEOVER - 5_000_000_000L, watch.untilTakeover("job", seen("v1"), 1_000 + 5_000_000_000L));
        assertEquals(0, watch.untilTakeover("job", seen("v1"), 1_000 + TAKEOVER));
        assertTrue(watch.untilTakeover("job", seen("v1"), 1_000 + TAKEOVER + 7) < 0);
    }

    @Test
    void anyChangeRestartsTheWatchFromItsOwnFirstSighting() {
        watch.untilTakeover("job", seen("v1"), 0);
        assertEquals(TAKEOVER, watch.untilTakeover("job", seen("v2"), 9_000_000_000L), "a renewal: watched afresh");
        assertEquals(TAKEOVER - 1_000_000_000L, watch.untilTakeover("job", seen("v2"), 10_000_000_000L));
    }

    @Test
    void namesAreWatchedApartAndForgettingOnlyDelays() {
        watch.untilTakeover("a", seen("v1"), 0);
        assertEquals(TAKEOVER, watch.untilTakeover("b", seen("v1"), 5_000_000_000L));
        watch.forget("a");
        assertEquals(TAKEOVER, watch.untilTakeover("a", seen("v1"), 5_000_000_000L), "forgotten: a new first sighting");
    }

    @Test
    void theFastPathIsImmediate() {
        assertEquals(0, watch.untilTakeover("job", new Sighting("v1", "holder", LEASE, true), 42));
    }

    @Test
    void offsetsAndWrapAroundOfTheMonotonicClockAreHarmless() {
        long nearWrap = Long.MAX_VALUE - 1_000_000_000L;
        assertEquals(TAKEOVER, watch.untilTakeover("job", seen("v1"), nearWrap));
        assertEquals(TAKEOVER - 2_000_000_000L, watch.untilTakeover("job", seen("v1"), nearWrap + 2_000_000_000L));
    }

    @Test
    void theMarginCoversTheStatedDrift() {
        double rate = LeaseWatch.ASSUMED_MAX_DRIFT_PERCENT / 100;
        assertTrue((1 + rate) / (1 - rate) <= 1 + LeaseWatch.DRIFT_MARGIN_PERCENT / 100.0);
        assertEquals(Long.MAX_VALUE, LeaseWatch.takeoverAfterNanos(Duration.ofDays(365 * 300)));
    }

    /**
     * Issue 34: names from user input, each held elsewhere under a long lease and looked at once, within one takeover
     * period (nothing is old enough to drop by age): the sightings stay bounded, the least recently seen dropped
     * first. Seen failing before: 10,001 sightings kept after 10,001 names (and every call past 10,000 walked the
     * whole map without dropping any).
     */
    @Test
    void sightingsOfManyNamesStayBoundedAndTheLeastRecentlySeenGoFirst() {
        Sighting longLease = new Sighting("v1", "holder", Duration.ofDays(1), false);
        int names = 3 * LeaseWatch.MAX_WATCHED;
        for (int i = 0; i < names; i++) {
            watch.untilTakeover("request-" + i, longLease, 1_000L * i);
            assertTrue(watch.size() <= LeaseWatch.MAX_WATCHED, "sightings kept after " + (i + 1) + ": " + watch.size());
        }
        long now = 1_000L * names;
        assertEquals(LeaseWatch.takeoverAfterNanos(Duration.ofDays(1)) - 1_000L,
                watch.untilTakeover("request-" + (names - 1), longLease, now), "the most recent sighting is kept");
        assertEquals(LeaseWatch.takeoverAfterNanos(Duration.ofDays(1)),
                watch.untilTakeover("request-0", longLease, now), "the oldest was dropped: watched afresh");
    }
}
