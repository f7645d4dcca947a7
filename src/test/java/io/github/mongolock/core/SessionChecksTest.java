package io.github.mongolock.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * After a request with an unknown outcome, a session checks its locks on every renewal for as long as the request
 * may still land (issue 31): two leases at least, and the store's late writes (its timeout) plus a renewal period.
 */
class SessionChecksTest {

    /** How many renewals in a row check after {@code checkSoon()}. */
    private static int checksInARow(Session session) {
        session.checkSoon();
        int checks = 0;
        while (session.takeCheck()) {
            checks++;
        }
        return checks;
    }

    @Test
    void withAShortLeaseTheChecksOutlastTheStoreTimeout() {
        Session session = new Session("s", Duration.ofSeconds(1), 0, Duration.ofSeconds(10));
        int checks = checksInARow(session);
        long spannedMillis = checks * session.renewalPeriodNanos() / 1_000_000;
        System.out.printf("[session checks] 1 s lease, 10 s store timeout: %d renewals in a row check (%d ms)%n", checks, spannedMillis);
        assertTrue(spannedMillis > 10_000 + session.renewalPeriodNanos() / 1_000_000,
                checks + " checks span " + spannedMillis + " ms, less than the 10 s a late write may take plus a renewal");
    }

    @Test
    void withALongLeaseTwoLeasesOfChecksAreEnough() {
        Session session = new Session("s", Duration.ofSeconds(30), 0, Duration.ofSeconds(10));
        assertEquals(Session.CHECKS_AFTER_UNKNOWN, checksInARow(session));
        assertFalse(session.takeCheck(), "checks stop after the unknown outcome's span");
    }
}
