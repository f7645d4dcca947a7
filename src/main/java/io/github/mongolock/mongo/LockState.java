package io.github.mongolock.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One lock document as an operator sees it ({@link LockAdmin}): who holds it, how often, with which token and
 * lease, how long ago it was last renewed by the database's clock, and who waits for it. A snapshot for people:
 * by the time it is shown the lock may have moved on, which is why a forced release names the {@code owner} and
 * {@code version} read here and changes nothing if either moved. Immutable.
 *
 * @param name            the lock's name
 * @param owner           the holding acquisition, {@code <instance-id>:<manager nonce>:<acquisition number>}, or null
 *                        when free
 * @param holds           the holder's hold count (0 when free)
 * @param version         the document's compare-and-set key, as read
 * @param fencingToken    the token of the last fresh grant
 * @param lease           the holder's lease length (while a minimum hold is kept: the time that was left)
 * @param acquiredAt      the last fresh grant, by the database's clock; null if never granted
 * @param renewedAt       the last grant, re-entry or renewal, by the database's clock; null if never granted
 * @param sinceRenewal    how long ago {@code renewedAt} was, by the database's clock at the read; null where the
 *                        server does not tell its time ({@code $$NOW}) or nothing was ever renewed
 * @param queue           the managers waiting for the lock, in arrival order ({@code <instance-id>:<manager nonce>})
 * @param minimumHoldKept the holder released it but its minimum hold ({@code holdAtLeast}) keeps it taken
 * @param lastRevocation  the last forced release of this lock, or null if there never was one
 */
public record LockState(String name, String owner, int holds, long version, long fencingToken, Duration lease,
                        Instant acquiredAt, Instant renewedAt, Duration sinceRenewal, List<String> queue,
                        boolean minimumHoldKept, Revocation lastRevocation) {

    public LockState {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(lease, "lease");
        queue = List.copyOf(queue);
    }

    /** Whether an acquisition holds it (or a released one's minimum hold keeps it). */
    public boolean held() {
        return owner != null && holds > 0;
    }

    /**
     * The instance id of the holder (the {@code instanceId} its manager was built with, e.g. a pod name), or null
     * when free: the owner without its manager nonce and acquisition number.
     */
    public String instanceId() {
        return owner == null ? null : instanceOf(owner, 2);
    }

    /** The instance id within an owner ({@code parts} = 2) or a queued manager ({@code parts} = 1). */
    static String instanceOf(String id, int parts) {
        int end = id.length();
        for (int i = 0; i < parts && end > 0; i++) {
            end = id.lastIndexOf(':', end - 1);
        }
        return end <= 0 ? id : id.substring(0, end);
    }

    /**
     * A forced release as recorded in the document.
     *
     * @param owner    the acquisition it ended
     * @param operator who released it
     * @param at       when, by the database's clock
     * @param reason   why, as the operator said
     */
    public record Revocation(String owner, String operator, Instant at, String reason) {
    }
}
