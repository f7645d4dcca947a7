package io.github.mongolock;

import java.util.Objects;

/**
 * Something that happened to a lock held by a manager of this JVM; delivered to
 * {@link LockListener}s and, in a CDI application, fired as a CDI event.
 *
 * @param kind         what happened
 * @param name         the lock's name
 * @param fencingToken the token of the acquisition concerned
 * @param owner        the owner concerned ({@code <instance-id>:<manager nonce>:<acquisition number>})
 * @param holdCount    the owner's holds after the event (0 after the last release or a loss)
 */
public record LockEvent(Kind kind, String name, long fencingToken, String owner, int holdCount) {

    public enum Kind {
        /** A hold was acquired, fresh ({@code holdCount == 1}) or re-entrant. */
        ACQUIRED,
        /** A hold was released; {@code holdCount == 0} means the lock is free again. */
        RELEASED,
        /** The lease was lost while held: work under the lock is no longer protected. */
        LEASE_LOST
    }

    public LockEvent {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(owner, "owner");
    }
}
