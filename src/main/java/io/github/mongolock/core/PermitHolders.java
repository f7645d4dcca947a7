package io.github.mongolock.core;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A semaphore as read: its limit, the permits in use, each hold, and, when read for a waiter, the state of each
 * holding session (its beat, the lease watched on the waiter's own clock).
 *
 * @param version  the record's version: every change increments it
 * @param token    the last fencing token granted
 * @param queue    the managers waiting, in arrival order
 * @param turn     the queue head's turn count: a head that cannot be granted yet moves it now and then to show it still
 *                 waits ({@link PermitStore#stillWaiting}); unchanged with the same head and version for the turn grace,
 *                 the head is taken to be gone
 * @param sessions the holding sessions as read, one per session id (empty when not read)
 */
public record PermitHolders(String name, int limit, int used, List<Hold> holds, long version, long token,
                            List<String> queue, long turn, List<Seen> sessions) {

    public PermitHolders {
        Objects.requireNonNull(name, "name");
        holds = List.copyOf(holds);
        queue = List.copyOf(queue);
        sessions = List.copyOf(sessions);
    }

    /** Permits still free. */
    public int free() {
        return limit - used;
    }

    /** The manager first in the queue, or null when nobody is queued. */
    public String queueHead() {
        return queue.isEmpty() ? null : queue.get(0);
    }

    /** One holder's permits, under its session. */
    public record Hold(String owner, String session, int permits) {
    }

    /**
     * A holding session as read: {@code beat} is opaque (equal beats: not renewed in between); {@code ended} when
     * the read showed it ended or found no such session (neither authorises a take by itself: the store ends it by a
     * compare-and-set first).
     */
    public record Seen(String session, Object beat, Duration lease, boolean ended) {
    }
}
