package io.github.mongolock.core;

import io.github.mongolock.LockException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sessions of one manager, one per lease length in use ({@link Session}): grants are made under the current
 * session of their lease, which is opened on first use and again after the previous one ended. A session whose
 * confirmed lease has less than a third of a lease left (its renewals are late) is renewed before a grant is made
 * under it, so that the grant's answer is not wasted on a session about to lapse. Thread-safe.
 */
final class Sessions {

    /** How long a session with no lock held or granted is still renewed, so the next grant need not open one. */
    static final Duration IDLE_KEEP = Duration.ofMinutes(10);
    private static final System.Logger LOG = System.getLogger(Sessions.class.getName());

    private final LockStore store;
    private final MonotonicClock clock;
    private final String manager;
    private final Map<Duration, Session> current = new ConcurrentHashMap<>();
    /** Called with every newly opened session: the renewer starts renewing it. */
    private final java.util.function.Consumer<Session> opened;

    Sessions(LockStore store, MonotonicClock clock, String manager, java.util.function.Consumer<Session> opened) {
        this.store = store;
        this.clock = clock;
        this.manager = manager;
        this.opened = opened;
    }

    /** The session a grant of {@code lease} is made under: live and confirmed for a while yet. */
    Session forGrant(Duration lease) {
        Session session = current.get(lease);
        long now = clock.nanoTime();
        if (session != null && session.confirmedUntilNanos() - now > session.renewalPeriodNanos() && !session.isEnded()) {
            session.used(now);
            return session;
        }
        synchronized (this) {
            session = current.get(lease);
            now = clock.nanoTime();
            if (session != null && !session.isEnded() && session.confirmedAt(now)) {
                if (session.confirmedUntilNanos() - now > session.renewalPeriodNanos()) {
                    session.used(now);
                    return session;
                }
                long sentAt = clock.nanoTime();
                SessionRenewal renewal = store.renewSession(session.id);
                if (renewal.live() && session.confirm(sentAt, clock.nanoTime(), renewal.checks())) {
                    session.used(clock.nanoTime());
                    return session;
                }
                // Ended or lapsed: its locks are reported by the renewer; grants go to a new session.
            }
            long sentAt = clock.nanoTime();
            Session fresh = new Session(store.openSession(manager, lease), lease, sentAt);
            current.put(lease, fresh);
            opened.accept(fresh);
            return fresh;
        }
    }

    /** The sessions still live here (not ended), for the renewer. */
    List<Session> live() {
        List<Session> live = new ArrayList<>(current.size());
        for (Session session : current.values()) {
            if (!session.isEnded()) {
                live.add(session);
            }
        }
        return live;
    }

    /** {@code session} is over: grants go to a new one from now on. */
    void forget(Session session) {
        current.remove(session.lease, session);
    }

    /**
     * Ends {@code session} in the store, so that waiters may take whatever it still holds at once; best effort
     * (when the store cannot be told, waiters find it unrenewed after a lease).
     */
    void endInStore(Session session) {
        try {
            OwnedLocks.withoutInterrupt(() -> {
                store.endSession(session.id);
                return null;
            });
        } catch (LockException unreachable) {
            LOG.log(Level.DEBUG, "mongolock could not end {0}; waiters end it once it stays unrenewed for its lease: {1}",
                    session, unreachable.getMessage());
        }
    }

    /** Ends every session (the manager is closing): in the store first, then here. */
    void endAll() {
        for (Session session : List.copyOf(current.values())) {
            session.end("the lock manager was closed");
            forget(session);
            endInStore(session);
        }
    }
}
