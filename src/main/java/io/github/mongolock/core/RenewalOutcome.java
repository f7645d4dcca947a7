package io.github.mongolock.core;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What one {@link LockStore#renew} call found: the names whose claims still hold (their leases restarted), and,
 * for a lost claim whose store knows why it was lost, that reason in words for people. A lost claim without an
 * entry was lost the usual way: its lease ran out and the lock went to another owner. Immutable.
 *
 * @param confirmed   the names whose claims still hold
 * @param lossReasons for some of the names not confirmed: why the claim was lost (e.g. an operator released the
 *                    lock), told to the holder in its {@code LEASE_LOST} log line and its {@code LockLostException}
 */
public record RenewalOutcome(Set<String> confirmed, Map<String, String> lossReasons) {

    /** What the renewer tells a holder whose claim was not confirmed and whose store gave no reason. */
    public static final String TAKEN_OVER =
            "a renewal found that the lease had run out and the lock belongs to another owner now";

    public RenewalOutcome {
        confirmed = Set.copyOf(Objects.requireNonNull(confirmed, "confirmed"));
        lossReasons = Map.copyOf(Objects.requireNonNull(lossReasons, "lossReasons"));
    }

    /** Only {@code confirmed} hold; the others were lost the usual way. */
    public static RenewalOutcome confirmedOnly(Set<String> confirmed) {
        return new RenewalOutcome(confirmed, Map.of());
    }

    /**
     * The reason a store gives for a claim an operator ended, the same words whatever the store: the holder's
     * {@code LockLostException} carries them, and people search logs for them.
     *
     * @param operator who released it, as recorded with the release
     * @param reason   why, as the operator gave it
     */
    public static String releasedByOperator(String operator, String reason) {
        return "released by an operator: " + reason + " (by " + operator + ")";
    }

    /** Why {@code name}'s claim, not confirmed, was lost. */
    public String lossReason(String name) {
        return lossReasons.getOrDefault(name, TAKEN_OVER);
    }
}
