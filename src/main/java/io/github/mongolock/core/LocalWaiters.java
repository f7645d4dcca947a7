package io.github.mongolock.core;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The callers of one coordinator waiting for each lock, oldest first, so that a holder releasing its
 * last hold can hand the lock straight to the oldest of them in one round trip instead of freeing it
 * for a race (see docs/fairness.md). Thread-safe.
 */
final class LocalWaiters {

    /**
     * How many grants in a row one manager may give itself by hand-over (the fresh grant included)
     * before it frees the lock, so that a manager queued for it gets its turn.
     */
    static final int MAX_STREAK = 8;

    /** A caller's place in line, from joining the wait to leaving it. */
    static final class Ticket {

        private enum State { WAITING, CLAIMED, GRANTED, LEFT }

        final Duration lease;
        /** The caller, woken by {@link #grant} alone: the other callers in line would only park again. */
        private final Thread caller;
        private State state = State.WAITING;
        private HeldLock granted;

        private Ticket(Duration lease, Thread caller) {
            this.lease = lease;
            this.caller = caller;
        }

        /** The releaser's side: takes the ticket for a hand-over, if its caller still waits. */
        private synchronized boolean claim() {
            if (state != State.WAITING) {
                return false;
            }
            state = State.CLAIMED;
            return true;
        }

        /** The releaser's side: the hand-over landed; the lock is the ticket's caller's. */
        void grant(HeldLock lock) {
            synchronized (this) {
                granted = lock;
                state = State.GRANTED;
                notifyAll();
            }
            LockSupport.unpark(caller); // parked in ReleaseSignals.Signal#awaitChange, or about to be
        }

        /** Whether the lock was handed to this ticket's caller and not yet taken. */
        synchronized boolean isGranted() {
            return state == State.GRANTED;
        }

        /** The releaser's side: the hand-over did not happen; the caller keeps waiting in line. */
        synchronized void fail() {
            state = State.WAITING;
            notifyAll();
        }

        /** The caller's side: the lock handed to it, if any (then the ticket is done). */
        synchronized HeldLock takeGranted() {
            if (state != State.GRANTED) {
                return null;
            }
            state = State.LEFT;
            return granted;
        }

        /**
         * The caller's side, when it stops waiting: leaves the line. A hand-over under way is waited for
         * (the releaser's store call is bounded by the store's timeout), so no grant is ever left without
         * its caller.
         *
         * @return a lock handed over before the caller left, which the caller must now take or release
         */
        synchronized HeldLock leave() {
            boolean interrupted = false;
            while (state == State.CLAIMED) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            HeldLock handed = state == State.GRANTED ? granted : null;
            state = State.LEFT;
            return handed;
        }
    }

    private final Map<String, ArrayDeque<Ticket>> lines = new HashMap<>();

    /** The calling thread starts waiting for {@code name}; it will want a lease of {@code lease}. */
    synchronized Ticket join(String name, Duration lease) {
        Ticket ticket = new Ticket(lease, Thread.currentThread());
        // Mostly one caller per name: a small deque (the default one has room for 16).
        lines.computeIfAbsent(name, key -> new ArrayDeque<>(2)).addLast(ticket);
        return ticket;
    }

    /** The caller of {@code ticket} stopped waiting (after {@link Ticket#leave} or {@link Ticket#takeGranted}). */
    synchronized void remove(String name, Ticket ticket) {
        ArrayDeque<Ticket> line = lines.get(name);
        if (line != null && line.remove(ticket) && line.isEmpty()) {
            lines.remove(name);
        }
    }

    /**
     * Claims the oldest caller still waiting for {@code lock}'s name, for a hand-over, unless the lock
     * has already gone to this manager {@link #MAX_STREAK} times in a row.
     *
     * @return the claimed ticket (the releaser must {@link Ticket#grant} or {@link Ticket#fail} it), or null
     */
    synchronized Ticket claimNext(HeldLock lock) {
        if (lock.streak + 1 >= MAX_STREAK) {
            return null;
        }
        ArrayDeque<Ticket> line = lines.get(lock.name);
        if (line != null) {
            for (Ticket ticket : line) {
                if (ticket.claim()) {
                    return ticket;
                }
            }
        }
        return null;
    }

    /** Whether any caller of this manager still waits for {@code name}. */
    synchronized boolean anyWaiting(String name) {
        return lines.containsKey(name);
    }
}
