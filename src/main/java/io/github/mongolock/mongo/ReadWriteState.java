package io.github.mongolock.mongo;

import io.github.mongolock.ReadWriteHold;
import io.github.mongolock.core.ReadWriteStore;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One read-write lock's document as an operator sees it ({@link ReadWriteAdmin}): each holder with its mode and its
 * session's state, and the managers with a writer waiting. A caller that downgraded a write holds two entries, a write
 * and a read, under two owners. A snapshot for people: a forced release names the holder's {@code owner} and changes
 * nothing if that holder is gone. Immutable.
 *
 * @param name           the read-write lock's name
 * @param version        the document's compare-and-set key, as read (+1 on every grant, release and take-back)
 * @param fencingToken   the token of the last grant, read or write
 * @param holders        each holding acquisition, in grant order
 * @param writersQueued  the managers with a writer waiting, in arrival order ({@code <instance-id>:<manager nonce>}):
 *                       no new reader is granted while there is one
 * @param lastRevocation the last forced release of one of its holders, or null if there never was one
 */
public record ReadWriteState(String name, long version, long fencingToken, List<Holder> holders, List<String> writersQueued,
                             LockState.Revocation lastRevocation) {

    public ReadWriteState {
        Objects.requireNonNull(name, "name");
        holders = List.copyOf(holders);
        writersQueued = List.copyOf(writersQueued);
    }

    /** {@code WRITE} when a writer holds it, else {@code READ} when readers do; null when nobody holds it. */
    public ReadWriteHold.Mode heldAs() {
        if (holders.isEmpty()) {
            return null;
        }
        return holders.stream().anyMatch(holder -> holder.mode() == ReadWriteHold.Mode.WRITE) ? ReadWriteHold.Mode.WRITE
                : ReadWriteHold.Mode.READ;
    }

    /** How many read holds there are. */
    public long readers() {
        return holders.stream().filter(holder -> holder.mode() == ReadWriteHold.Mode.READ).count();
    }

    static ReadWriteState of(PermitsState stored) {
        List<Holder> holders = stored.holders().stream().map(holder -> new Holder(holder.owner(), holder.session(),
                holder.permits() >= ReadWriteStore.WHOLE ? ReadWriteHold.Mode.WRITE : ReadWriteHold.Mode.READ,
                holder.sessionState(), holder.lease(), holder.sinceRenewal())).toList();
        return new ReadWriteState(stored.name(), stored.version(), stored.fencingToken(), holders, stored.queue(),
                stored.lastRevocation());
    }

    /**
     * One holder's access.
     *
     * @param owner        the holding acquisition, {@code <instance-id>:<manager nonce>:rw<number>}
     * @param session      the id of the session it holds it under
     * @param mode         read or write
     * @param sessionState {@code live}, {@code ended} (the next waiter takes it back) or {@code missing}
     * @param lease        the session's lease; null when the session is not live
     * @param sinceRenewal how long ago the session was last renewed, by the database's clock; null when not live or
     *                     where the server does not tell its time
     */
    public record Holder(String owner, String session, ReadWriteHold.Mode mode, String sessionState, Duration lease,
                         Duration sinceRenewal) {

        public Holder {
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(session, "session");
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(sessionState, "sessionState");
        }

        /** The holder's instance id (the {@code instanceId} its manager was built with). */
        public String instanceId() {
            return LockState.instanceOf(owner, 2);
        }
    }
}
