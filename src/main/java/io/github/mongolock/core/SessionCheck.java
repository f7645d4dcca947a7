package io.github.mongolock.core;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one {@link LockStore#checkSession} read found: the locks held under the session now, and, for a claim no
 * longer among them whose store knows why it was lost, that reason in words for people. A lost claim without an
 * entry was lost the usual way: its session ended and the lock went to another owner. Immutable.
 *
 * @param held        every lock document held under the session, as read
 * @param lossReasons for some of the claims not held any more: why (e.g. an operator released the lock), told
 *                    to the holder in its {@code LEASE_LOST} log line and its {@code LockLostException}
 */
public record SessionCheck(List<HeldUnder> held, Map<String, String> lossReasons) {

    /** A lock document held under the session: by which acquisition, at which version. */
    public record HeldUnder(String name, String owner, String leaseId, long version) {
        public HeldUnder {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(owner, "owner");
        }
    }

    /** What the renewer tells a holder whose claim was not found and whose store gave no reason. */
    public static final String TAKEN_OVER =
            "a check of its session found that the lock belongs to another owner now";

    public SessionCheck {
        held = List.copyOf(Objects.requireNonNull(held, "held"));
        lossReasons = Map.copyOf(Objects.requireNonNull(lossReasons, "lossReasons"));
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

    /** Why {@code name}'s claim, not found held, was lost. */
    public String lossReason(String name) {
        return lossReasons.getOrDefault(name, TAKEN_OVER);
    }
}
