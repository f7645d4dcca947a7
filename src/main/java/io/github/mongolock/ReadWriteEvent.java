package io.github.mongolock;

import java.util.Objects;

/**
 * Something that happened to a grant of a {@link ReadWriteLock} held by a manager of this JVM; delivered to
 * {@link LockListener#onReadWriteEvent} and, in a CDI application, fired as a CDI event (observe
 * {@code @Observes ReadWriteEvent}). A caller's nested acquisitions of one mode are one grant: one {@code ACQUIRED}, one
 * {@code RELEASED} or {@code LEASE_LOST}.
 *
 * @param kind         what happened
 * @param name         the read-write lock's name
 * @param mode         read or write
 * @param fencingToken the grant's token
 * @param owner        the grant's owner ({@code <instance-id>:<manager nonce>:rw<n>})
 */
public record ReadWriteEvent(Kind kind, String name, ReadWriteHold.Mode mode, long fencingToken, String owner) {

    public enum Kind {
        /** Access was granted: a read or write call returns a hold that is not a re-entry. */
        ACQUIRED,
        /** The caller's last hold of the grant was closed and the access given back. */
        RELEASED,
        /**
         * The access was lost while held (taken back after the holder's session was found unrenewed, released by an
         * operator, or the session's lease ended unconfirmed): work under it is no longer protected.
         */
        LEASE_LOST
    }

    public ReadWriteEvent {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(owner, "owner");
    }
}
