package io.github.mongolock.memory;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.core.LockArguments;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.PermitAttempt;
import io.github.mongolock.core.PermitHolders;
import io.github.mongolock.core.PermitStore;
import io.github.mongolock.core.ReadWriteStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The leased semaphores of an {@link InMemoryLockStore}: MongoDB's semaphore document as Java fields, each operation
 * atomic under the store's monitor as one single-document update is in MongoDB, with the same rules (a grant only
 * within the limit and behind no other manager in the queue, a reclaim only after the session ended by a
 * compare-and-set, a limit that is part of the name's contract).
 */
final class InMemoryPermits implements ReadWriteStore {

    private final InMemoryLockStore store;
    /** Guarded by {@code store}. */
    private final Map<String, Semaphore> semaphores = new HashMap<>();

    /** A read-write lock's records: a read (fewer permits than the limit) waits for any queued writer. */
    private final boolean readWrite;

    InMemoryPermits(InMemoryLockStore store) {
        this(store, false);
    }

    /** @param readWrite whether the records are read-write locks' (writer preference) rather than semaphores' */
    InMemoryPermits(InMemoryLockStore store, boolean readWrite) {
        this.readWrite = readWrite;
        this.store = store;
    }

    /** One semaphore as stored. */
    private static final class Semaphore {
        final int limit;
        int used;
        long version;
        long token;
        long turn;
        final List<PermitHolders.Hold> holds = new ArrayList<>();
        final List<String> queue = new ArrayList<>();

        Semaphore(int limit) {
            this.limit = limit;
        }
    }

    @Override
    public PermitAttempt tryAcquire(String name, int limit, int permits, String owner, String session) {
        synchronized (store) {
            Semaphore semaphore = semaphores.computeIfAbsent(name, absent -> new Semaphore(limit));
            if (semaphore.limit != limit) {
                throw new LockConfigurationException("the semaphore " + LockArguments.quote(name) + " has " + semaphore.limit
                        + " permits, but was asked for with a limit of " + limit + ": a semaphore's limit is part of its"
                        + " name's contract. Use the same limit everywhere, or another name; nothing was written");
            }
            String manager = LockStore.managerOf(owner);
            boolean reader = readWrite && permits < limit;
            boolean queuedBehind = !semaphore.queue.isEmpty() && (reader || !semaphore.queue.get(0).equals(manager));
            if (semaphore.used > limit - permits || queuedBehind) {
                return new PermitAttempt.Busy(Optional.of(read(name, semaphore)));
            }
            semaphore.holds.add(new PermitHolders.Hold(owner, session, permits));
            semaphore.used += permits;
            semaphore.version++;
            semaphore.token++;
            semaphore.queue.remove(manager);
            return new PermitAttempt.Granted(semaphore.token, semaphore.version);
        }
    }

    @Override
    public PermitAttempt reclaim(String name, int limit, int permits, String owner, String session, PermitHolders.Seen stale) {
        PermitAttempt attempt;
        boolean taken = false;
        String head = null;
        synchronized (store) {
            if (!store.endUnlessLive(stale.session(), stale.ended() ? null : stale.beat())) {
                return PermitAttempt.Busy.unknown(); // renewed since: watch again
            }
            Semaphore semaphore = semaphores.get(name);
            if (semaphore != null) {
                int freed = 0;
                for (PermitHolders.Hold hold : List.copyOf(semaphore.holds)) {
                    if (hold.session().equals(stale.session())) {
                        semaphore.holds.remove(hold);
                        semaphore.queue.remove(LockStore.managerOf(hold.owner())); // as MongoDB's take-back does
                        freed += hold.permits();
                    }
                }
                if (freed > 0) {
                    semaphore.used -= freed;
                    semaphore.version++;
                    taken = true;
                    head = semaphore.queue.isEmpty() ? null : semaphore.queue.get(0);
                }
            }
            attempt = tryAcquire(name, limit, permits, owner, session);
        }
        if (taken) {
            released(name, head);
        }
        return attempt;
    }

    @Override
    public boolean release(String name, String owner, int permits) {
        String head;
        synchronized (store) {
            Semaphore semaphore = semaphores.get(name);
            PermitHolders.Hold released = semaphore == null ? null : semaphore.holds.stream()
                    .filter(hold -> hold.owner().equals(owner) && hold.permits() == permits).findFirst().orElse(null);
            if (released == null) {
                return false;
            }
            semaphore.holds.remove(released);
            semaphore.used -= permits;
            semaphore.version++;
            head = semaphore.queue.isEmpty() ? null : semaphore.queue.get(0);
        }
        released(name, head);
        return true;
    }

    @Override
    public List<HeldUnder> heldUnder(String session) {
        synchronized (store) {
            List<HeldUnder> held = new ArrayList<>();
            semaphores.forEach((name, semaphore) -> semaphore.holds.stream().filter(hold -> hold.session().equals(session))
                    .forEach(hold -> held.add(new HeldUnder(name, hold.owner(), hold.permits()))));
            return held;
        }
    }

    @Override
    public Optional<PermitHolders> inspect(String name) {
        synchronized (store) {
            Semaphore semaphore = semaphores.get(name);
            return semaphore == null ? Optional.empty() : Optional.of(read(name, semaphore));
        }
    }

    /**
     * Takes back every permit of {@code name}, as other managers do after ending the holders' sessions: the test kit's
     * control. The holders' sessions stay live; their checks find the entries gone.
     *
     * @return the owners whose permits were taken back
     */
    List<String> takeBackAll(String name) {
        List<String> owners = new ArrayList<>();
        String head;
        synchronized (store) {
            Semaphore semaphore = semaphores.get(name);
            if (semaphore == null || semaphore.holds.isEmpty()) {
                return owners;
            }
            semaphore.holds.forEach(hold -> owners.add(hold.owner()));
            semaphore.holds.clear();
            semaphore.used = 0;
            semaphore.version++;
            head = semaphore.queue.isEmpty() ? null : semaphore.queue.get(0);
        }
        released(name, head);
        return owners;
    }

    /** Tells the feeds, outside the monitor, that {@code name}'s holds were given back (its own kind of notice). */
    private void released(String name, String queueHead) {
        if (readWrite) {
            store.readWritesReleased(name, queueHead);
        } else {
            store.permitsReleased(name, queueHead);
        }
    }

    @Override
    public PermitAttempt downgrade(String name, String writeOwner, String owner, String session) {
        if (!readWrite) {
            throw new UnsupportedOperationException("a semaphore has no write holds to downgrade");
        }
        synchronized (store) {
            Semaphore semaphore = semaphores.get(name);
            boolean writing = semaphore != null && semaphore.holds.stream()
                    .anyMatch(hold -> hold.owner().equals(writeOwner) && hold.permits() == semaphore.limit);
            if (!writing) {
                return PermitAttempt.Busy.unknown(); // the write hold was taken back: nothing to downgrade
            }
            semaphore.holds.add(new PermitHolders.Hold(owner, session, 1));
            semaphore.used += 1;
            semaphore.version++;
            semaphore.token++;
            return new PermitAttempt.Granted(semaphore.token, semaphore.version);
        }
    }

    @Override
    public void joinQueue(String name, String manager) {
        synchronized (store) {
            Semaphore semaphore = semaphores.get(name);
            if (semaphore != null && !semaphore.queue.contains(manager)) {
                semaphore.queue.add(manager);
            }
        }
    }

    @Override
    public void leaveQueue(String name, String manager) {
        String head;
        synchronized (store) {
            Semaphore semaphore = semaphores.get(name);
            if (semaphore == null || !semaphore.queue.remove(manager)) {
                return;
            }
            head = semaphore.queue.isEmpty() ? null : semaphore.queue.get(0);
        }
        released(name, head);
    }

    @Override
    public void stillWaiting(String name, String manager) {
        synchronized (store) {
            Semaphore semaphore = semaphores.get(name);
            if (semaphore != null && !semaphore.queue.isEmpty() && semaphore.queue.get(0).equals(manager)) {
                semaphore.turn++;
            }
        }
    }

    @Override
    public boolean dropStaleHead(String name, String staleHead, long turn) {
        String head;
        synchronized (store) {
            Semaphore semaphore = semaphores.get(name);
            if (semaphore == null || semaphore.turn != turn || semaphore.queue.isEmpty()
                    || !semaphore.queue.get(0).equals(staleHead)) {
                return false;
            }
            semaphore.queue.remove(0);
            head = semaphore.queue.isEmpty() ? null : semaphore.queue.get(0);
        }
        released(name, head);
        return true;
    }

    /** Guarded by {@code store}. */
    private PermitHolders read(String name, Semaphore semaphore) {
        Set<String> ids = new LinkedHashSet<>();
        semaphore.holds.forEach(hold -> ids.add(hold.session()));
        List<PermitHolders.Seen> seen = new ArrayList<>();
        for (String id : ids) {
            StoredLock.StoredSession stored = store.storedSession(id);
            boolean live = stored != null && stored.live;
            seen.add(new PermitHolders.Seen(id, live ? stored.beat : -1L, Duration.ofMillis(live ? Math.max(stored.leaseMs, 1) : 1),
                    !live));
        }
        return new PermitHolders(name, semaphore.limit, semaphore.used, semaphore.holds, semaphore.version, semaphore.token,
                semaphore.queue, semaphore.turn, seen);
    }

    /**
     * What {@code LockAdmin.forceReleasePermits} does to MongoDB's document: pulls {@code owner}'s entry and tells its
     * session to check (its next renewal finds the permits gone and reports them lost).
     *
     * @return false when {@code owner} holds no permit of {@code name} (nothing changed)
     */
    boolean forceRelease(String name, String owner) {
        String head;
        synchronized (store) {
            Semaphore semaphore = semaphores.get(name);
            PermitHolders.Hold pulled = semaphore == null ? null
                    : semaphore.holds.stream().filter(hold -> hold.owner().equals(owner)).findFirst().orElse(null);
            if (pulled == null) {
                return false;
            }
            semaphore.holds.remove(pulled);
            semaphore.used -= pulled.permits();
            semaphore.version++;
            StoredLock.StoredSession session = store.storedSession(pulled.session());
            if (session != null) {
                session.checks++;
            }
            head = semaphore.queue.isEmpty() ? null : semaphore.queue.get(0);
        }
        released(name, head); // free for waiters at once, as MongoDB's change stream would tell them
        return true;
    }
}
