package io.github.mongolock.core;

import io.github.mongolock.LockException;
import io.github.mongolock.LockInterruptedException;
import io.github.mongolock.LockStoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A coordinator's fresh acquisitions at the store: one attempt under an owner id of its own, the
 * waiter's lease rule ({@link LeaseWatch}) when the lock is held elsewhere, the takeover once that rule
 * allows it, and the clean-up of an attempt whose outcome is unknown. Registration, the call gate and
 * events stay with the coordinator. Thread-safe.
 */
final class FreshAttempts {

    /**
     * What one attempt found: a grant (with the owner id it was made under and when the request was
     * sent), or who holds the lock, when a takeover becomes due if it stays unchanged, by when to look
     * again (each null when unknown), and whether the store showed this manager queued for the lock.
     */
    record Outcome(String owner, AcquireAttempt.Granted granted, Session session,
                   Optional<String> holder, Duration takeoverDueIn, Duration retryBy, boolean queued) {

        static Outcome busy(Optional<String> holder, Duration takeoverDueIn, Duration retryBy, boolean queued) {
            return new Outcome(null, null, null, holder, takeoverDueIn, retryBy, queued);
        }

        boolean isGranted() {
            return granted != null;
        }
    }

    private final LockStore store;
    private final MonotonicClock clock;
    private final String ownerPrefix;
    private final Sessions sessions;
    /**
     * Owner ids whose grant may be in the store but not yet registered as held: from before the request is sent
     * until the acquisition is registered, or its clean-up done. The renewer's check never frees their locks.
     */
    private final java.util.Set<String> pending = ConcurrentHashMap.newKeySet();
    private final AtomicLong acquisitions = new AtomicLong();
    private final LeaseWatch watch = new LeaseWatch();
    /**
     * Attempts whose outcome was unknown and whose clean-up failed too, owner id per name: each may have
     * left the lock held under an owner id nobody renews. Freed at the next attempt on the name, or on close;
     * at most {@value #MAX_ORPHANS} names (names from user input during a long outage would never come again):
     * the session's check, asked for by every such failure, frees the others.
     */
    private final ConcurrentHashMap<String, String> orphans = new ConcurrentHashMap<>();
    static final int MAX_ORPHANS = 1_000;

    FreshAttempts(LockStore store, MonotonicClock clock, String ownerPrefix, Sessions sessions) {
        this.store = store;
        this.clock = clock;
        this.ownerPrefix = ownerPrefix;
        this.sessions = sessions;
    }

    /** The owner ids of acquisitions under way (see {@link #settled}). */
    java.util.Set<String> pending() {
        return pending;
    }

    /** The acquisition {@code owner} is registered as held, or was never granted: no longer pending. */
    void settled(String owner) {
        if (owner != null) {
            pending.remove(owner);
        }
    }

    /** A new owner id of this manager: unique per acquisition, fresh or handed over. */
    String nextOwner() {
        return ownerPrefix + ":" + acquisitions.incrementAndGet();
    }

    Outcome attempt(String name, Duration lease) {
        String orphan = orphans.get(name);
        if (orphan != null) {
            store.abandon(name, orphan); // owner-checked: frees only that attempt's grant, if it landed
            orphans.remove(name, orphan);
        }
        Session session;
        try {
            session = sessions.forGrant(lease);
        } catch (LockStoreException noSession) {
            throw new LockStoreException("Lock \"" + name + "\" was not acquired: " + noSession.getMessage(), noSession,
                    noSession.outcomeUnknown()); // an unknown session insert is never used: nothing to clean up
        }
        String owner = nextOwner();
        pending.add(owner);
        try {
            Outcome outcome = attempt(name, owner, session);
            if (!outcome.isGranted()) {
                pending.remove(owner);
            }
            return outcome;
        } catch (RuntimeException failure) {
            pending.remove(owner);
            throw failure;
        }
    }

    private Outcome attempt(String name, String owner, Session session) {
        AcquireAttempt result = cleaningUp(name, owner, session, null);
        if (result instanceof AcquireAttempt.Busy busy && busy.sighting().isPresent()) {
            Sighting sighting = busy.sighting().get();
            long dueIn = watch.untilTakeover(name, sighting, clock.nanoTime());
            if (dueIn > 0) {
                // Look again well within the holder's renewal interval (lease/3): a crash is then seen within
                // a fifth of a lease of the last renewal, and the takeover follows lease + 3 % after that,
                // inside lease + one renewal interval of the crash.
                Duration freshness = sighting.holderLease().dividedBy(5);
                Duration due = Duration.ofNanos(dueIn);
                return Outcome.busy(busy.holder(), due, due.compareTo(freshness) < 0 ? due : freshness, busy.queued());
            }
            result = cleaningUp(name, owner, session, sighting);
        }
        if (!(result instanceof AcquireAttempt.Granted granted)) {
            AcquireAttempt.Busy busy = (AcquireAttempt.Busy) result;
            return Outcome.busy(busy.holder(), null, null, busy.queued());
        }
        watch.forget(name);
        if (!session.confirmedAt(clock.nanoTime())) {
            // Granted under a session whose lease ran out before the answer: a waiter may be ending that session
            // right now, so the grant is not believed (spec/MongoLockSessions.tla, "GrantOwnLease"). Freed at once.
            freeUnbelieved(name, owner, granted, session);
            return Outcome.busy(Optional.empty(), null, Duration.ZERO, false);
        }
        return new Outcome(owner, granted, session, Optional.empty(), null, null, false);
    }

    private void freeUnbelieved(String name, String owner, AcquireAttempt.Granted granted, Session session) {
        try {
            OwnedLocks.withoutInterrupt(() -> store.release(name, owner, granted.version(), 0));
        } catch (LockException unknown) {
            session.checkSoon(); // left to the session's check, or to the waiters once the session ends
        }
    }

    /**
     * Frees what attempts with an unknown outcome may have left held, as far as the store lets it now.
     *
     * @return the names still possibly held by such an attempt (they free themselves when their leases run out)
     */
    List<String> abandonOrphans() {
        List<String> left = new ArrayList<>();
        orphans.forEach((name, owner) -> {
            try {
                OwnedLocks.withoutInterrupt(() -> {
                    store.abandon(name, owner);
                    return null;
                });
                orphans.remove(name, owner);
            } catch (LockException stillDown) {
                left.add(name);
            }
        });
        return left;
    }

    /**
     * Runs one store attempt: {@link LockStore#tryAcquire}, or {@link LockStore#takeOver} of {@code takeOver} if given. When the store
     * fails, the outcome is unknown (the write may have landed); owner ids are unique per attempt, so
     * any document owned by {@code owner} is an orphan of this very attempt and is freed right away
     * instead of blocking others until its lease runs out.
     */
    private AcquireAttempt cleaningUp(String name, String owner, Session session, Sighting takeOver) {
        try {
            return takeOver == null ? store.tryAcquire(name, owner, session.id)
                    : store.takeOver(name, owner, session.id, takeOver);
        } catch (LockStoreException | LockInterruptedException failure) {
            if (failure instanceof LockStoreException unreachable && !unreachable.outcomeUnknown()) {
                throw failure; // never reached MongoDB: nothing to clean up
            }
            try {
                OwnedLocks.withoutInterrupt(() -> {
                    store.abandon(name, owner);
                    return null;
                });
            } catch (LockException cleanupFailed) {
                failure.addSuppressed(cleanupFailed);
                if (orphans.size() < MAX_ORPHANS) {
                    orphans.put(name, owner);
                }
            }
            session.checkSoon(); // a grant may still land after its abandon: the session's check frees it
            throw failure;
        }
    }
}
