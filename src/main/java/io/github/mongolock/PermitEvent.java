package io.github.mongolock;

import java.util.Objects;

/**
 * Something that happened to permits of a {@link Permits} semaphore held by a manager of this JVM; delivered to
 * {@link LockListener#onPermitEvent} and, in a CDI application, fired as a CDI event (observe
 * {@code @Observes PermitEvent}). Lock events stay {@link LockEvent}s: a listener of locks sees no semaphore.
 *
 * @param kind         what happened
 * @param name         the semaphore's name
 * @param fencingToken the token of the grant concerned
 * @param owner        the owner concerned ({@code <instance-id>:<manager nonce>:p<acquisition number>})
 * @param permits      how many permits the grant has
 */
public record PermitEvent(Kind kind, String name, long fencingToken, String owner, int permits) {

    public enum Kind {
        /** Permits were granted: an {@code acquire} or {@code tryAcquire} call returns this hold. */
        ACQUIRED,
        /** The hold was closed and its permits given back. */
        RELEASED,
        /**
         * The permits were lost while held (taken back by another manager after the holder's session was found
         * unrenewed, released by an operator, or the session's lease ended unconfirmed): work under them is no
         * longer protected. Its {@code close()} then fires nothing more.
         */
        LEASE_LOST
    }

    public PermitEvent {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(owner, "owner");
    }
}
