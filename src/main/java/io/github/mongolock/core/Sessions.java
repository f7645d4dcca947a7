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
 * session of their lease, which is opened on first use and again after the previous one's lease ran out or it
 * ended. Thread-safe.
 */
final class Sessions {

    /** How long a session with no lock held or granted is still renewed, so the next grant need not open one. */
    static final Duration IDLE_KEEP = Duration.ofMinutes(10);
    private static final System.Logger LOG = System.getLogger(Sessions.class.getName());

    private final LockStore store;
    private final MonotonicClock clock;
    private final String manager;
    /** The session each lease length's grants go to now. */
    private final Map<Duration, Session> current = new ConcurrentHashMap<>();
    /**
     * Every session not ended yet, the current ones and those a new one replaced for grants (their lease ran out
     * before the renewer noticed): the renewer still renews or ends them, and reports their locks.
     */
    private final java.util.Set<Session> open = ConcurrentHashMap.newKeySet();
    /** Called with every newly opened session: the renewer starts renewing it. */
    private final java.util.function.Consumer<Session> opened;

    Sessions(LockStore store, MonotonicClock clock, String manager, java.util.function.Consumer<Session> opened) {
        this.store = store;
        this.clock = clock;
        this.manager = manager;
        this.opened = opened;
    }

    /**
     * The session a grant of {@code lease} is made under: the current one while its lease is confirmed, else a new
     * one. No renewal is sent here: the renewer keeps the current session confirmed for two thirds of a lease ahead,
     * and a grant answered after its session lapsed is not believed anyway ({@link FreshAttempts}). Only opening
     * is serialised, so that a stalled MongoDB holds up one caller per lease length, not every acquisition.
     */
    Session forGrant(Duration lease) {
        Session session = current.get(lease);
        if (session != null && session.confirmedAt(clock.nanoTime())) {
            session.used(clock.nanoTime());
            return session;
        }
        synchronized (this) {
            session = current.get(lease);
            if (session != null && session.confirmedAt(clock.nanoTime())) {
                session.used(clock.nanoTime());
                return session;
            }
            // None yet, or its lease ran out (the renewer reports its locks and ends it): grants go to a new one.
            long sentAt = clock.nanoTime();
            Session fresh = new Session(store.openSession(manager, lease), lease, sentAt, store.lateWritesWithin());
            open.add(fresh);
            current.put(lease, fresh);
            opened.accept(fresh);
            return fresh;
        }
    }

    /** The sessions still live here (not ended), for the renewer. */
    List<Session> live() {
        List<Session> live = new ArrayList<>(open.size());
        for (Session session : open) {
            if (!session.isEnded()) {
                live.add(session);
            }
        }
        return live;
    }

    /** {@code session} is over: grants go to a new one from now on. */
    void forget(Session session) {
        current.remove(session.lease, session);
        open.remove(session);
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
        for (Session session : List.copyOf(open)) {
            session.end("the lock manager was closed");
            forget(session);
            endInStore(session);
        }
    }
}
