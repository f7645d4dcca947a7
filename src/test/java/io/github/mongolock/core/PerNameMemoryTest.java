package io.github.mongolock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 34: lock names often come from user input (one name per request, for days). What a manager keeps per name
 * while nobody holds or waits for it must go away: the waiters' release signals when the last waiter leaves, and
 * the lease watch's sightings once they are two takeover periods old (checked when more than 10,000 are kept).
 */
class PerNameMemoryTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void sightingsOfNamesNobodyAsksForAgainAgeOut() {
        LeaseWatch watch = new LeaseWatch();
        long takeover = LeaseWatch.takeoverAfterNanos(LEASE);
        for (int i = 0; i < 20_000; i++) {
            watch.untilTakeover("request-" + i, new Sighting("v", "holder", LEASE, false), 0);
        }
        assertTrue(watch.size() <= 20_000, "kept while young: " + watch.size());
        // Two takeover periods later, one more sighting of a new name prunes every old one.
        watch.untilTakeover("request-late", new Sighting("v", "holder", LEASE, false), 2 * takeover + 1);
        assertEquals(1, watch.size(), "only the new sighting is kept");
    }

    @Test
    void releaseSignalsGoWhenTheLastWaiterLeaves() {
        ReleaseSignals signals = new ReleaseSignals();
        for (int i = 0; i < 10_000; i++) {
            String name = "request-" + i;
            ReleaseSignals.Signal first = signals.join(name);
            ReleaseSignals.Signal second = signals.join(name);
            signals.released(name);
            signals.leave(name, first);
            signals.leave(name, second);
        }
        assertEquals(0, signals.waitingNames(), "no signal kept for names nobody waits for");
    }
}
