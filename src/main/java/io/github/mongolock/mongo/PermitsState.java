package io.github.mongolock.mongo;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One semaphore document as an operator sees it ({@link LockAdmin#listPermits}, {@link LockAdmin#inspectPermits}):
 * its limit, the permits in use, each holder with its session's state, and the managers queued. A snapshot for
 * people: a forced release names the holder's {@code owner} and changes nothing if that holder is gone. Immutable.
 *
 * @param name           the semaphore's name
 * @param limit          how many permits may be held at once
 * @param used           the permits held now (the sum of the holders' permits)
 * @param version        the document's compare-and-set key, as read (+1 on every grant, release and take-back)
 * @param fencingToken   the token of the last grant
 * @param holders        each holding acquisition, in grant order
 * @param queue          the managers waiting, in arrival order ({@code <instance-id>:<manager nonce>})
 * @param lastRevocation the last forced release of one of its holders, or null if there never was one
 */
public record PermitsState(String name, int limit, int used, long version, long fencingToken, List<Holder> holders,
                           List<String> queue, LockState.Revocation lastRevocation) {

    public PermitsState {
        Objects.requireNonNull(name, "name");
        holders = List.copyOf(holders);
        queue = List.copyOf(queue);
    }

    /** Permits free now. */
    public int free() {
        return limit - used;
    }

    /**
     * One holder's permits.
     *
     * @param owner        the holding acquisition, {@code <instance-id>:<manager nonce>:p<number>}
     * @param session      the id of the session it holds them under
     * @param permits      how many permits it holds
     * @param sessionState {@code live}, {@code ended} (the next waiter takes the permits back) or {@code missing}
     * @param lease        the session's lease; null when the session is not live
     * @param sinceRenewal how long ago the session was last renewed, by the database's clock; null when not live or
     *                     where the server does not tell its time
     */
    public record Holder(String owner, String session, int permits, String sessionState, Duration lease,
                         Duration sinceRenewal) {

        public Holder {
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(session, "session");
            Objects.requireNonNull(sessionState, "sessionState");
        }

        /** The holder's instance id (the {@code instanceId} its manager was built with). */
        public String instanceId() {
            return LockState.instanceOf(owner, 2);
        }
    }
}
