package io.github.mongolock.core;

import io.github.mongolock.LockException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The permits a manager holds, and the acquisitions whose grant may be in the store but is not registered yet, as
 * the session renewer sees them ({@link SessionHolders}): a session with permits under it is not idle; a session
 * that ended or lapsed loses them; a check reports the holds it did not find and gives back those it found that no
 * acquisition here knows (a grant whose answer was lost, a release that failed). Thread-safe.
 */
final class PermitHoldings implements SessionHolders {

    private static final System.Logger LOG = System.getLogger(PermitHoldings.class.getName());

    private final PermitStore store;
    private final LockEvents events;
    private final PermitReports reports;
    private final Set<HeldPermits> held = ConcurrentHashMap.newKeySet();
    /** Owner ids of grants under way: the check must not give them back before they are registered. */
    private final Set<String> pending = ConcurrentHashMap.newKeySet();

    PermitHoldings(PermitStore store, LockEvents events, PermitReports reports) {
        this.store = store;
        this.events = events;
        this.reports = reports;
    }

    void pending(String owner) {
        pending.add(owner);
    }

    /** The grant of {@code permits} is registered (or failed): no longer pending. */
    void registered(HeldPermits permits) {
        held.add(permits);
        pending.remove(permits.owner);
    }

    void notPending(String owner) {
        pending.remove(owner);
    }

    void removed(HeldPermits permits) {
        held.remove(permits);
    }

    List<HeldPermits> all() {
        return List.copyOf(held);
    }

    @Override
    public boolean anyUnder(Session session) {
        for (HeldPermits permits : held) {
            if (permits.session == session) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void sessionLost(Session session, String reason) {
        for (HeldPermits permits : held) {
            if (permits.session == session) {
                lost(permits, reason);
            }
        }
    }

    @Override
    public void check(Session session) {
        List<HeldPermits> before = new ArrayList<>();
        for (HeldPermits permits : held) {
            if (permits.session == session) {
                before.add(permits);
            }
        }
        List<PermitStore.HeldUnder> found = store.heldUnder(session.id);
        Set<String> foundOwners = new HashSet<>();
        found.forEach(hold -> foundOwners.add(hold.owner()));
        for (HeldPermits permits : before) {
            if (!foundOwners.contains(permits.owner)) {
                lost(permits, "a check of its session did not find them: another manager found the session unrenewed"
                        + " for its lease and took its permits back, or an operator released them");
            }
        }
        // The owners known are read after the store's answer: a grant made before the read is pending or registered.
        Set<String> known = new HashSet<>(pending);
        held.forEach(permits -> known.add(permits.owner));
        for (PermitStore.HeldUnder orphan : found) {
            if (!known.contains(orphan.owner())) {
                giveBackOrphan(session, orphan);
            }
        }
    }

    private void giveBackOrphan(Session session, PermitStore.HeldUnder orphan) {
        try {
            OwnedLocks.withoutInterrupt(() -> store.release(orphan.name(), orphan.owner(), orphan.permits()));
            LOG.log(Level.INFO, "mongolock gave back {0} permit(s) of semaphore {1}, held under {2} by {3}, an acquisition"
                    + " this manager no longer knows (a request whose outcome was unknown)", orphan.permits(),
                    LockArguments.quote(orphan.name()), session, orphan.owner());
        } catch (LockException storeDown) {
            session.checkSoon();
        }
    }

    private void lost(HeldPermits permits, String reason) {
        List<Runnable> actions = permits.lose(reason);
        if (actions == null) {
            return; // reported already, or closed
        }
        LOG.log(Level.WARNING, "mongolock lost the {0} (token {1}): {2}", permits.describe(), permits.fencingToken, reason);
        // The actions first (they stop work), then the listeners' event, then the mark the test kit's controls wait for.
        events.later(() -> actions.forEach(action -> LockEvents.runLossAction(action, permits.name)));
        reports.ended(permits, true, true);
        events.later(permits::told);
    }
}
