package io.github.mongolock.core;

import io.github.mongolock.LockLostException;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.PermitHold;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One grant of permits, held under one session of its manager: believed while that session's lease is confirmed
 * and no check or renewal found it taken back. Thread-safe: the status and the loss actions are guarded by
 * {@code this}; the renewer, the notice thread and the owner all touch them.
 */
final class HeldPermits implements PermitHold {

    private enum Status { HELD, LOST, CLOSED }

    final String name;
    final int limit;
    final int permits;
    final String owner;
    final Session session;
    final long fencingToken;
    private final PermitCoordinator coordinator;
    private Status status = Status.HELD;
    private String lossReason;
    private boolean lossSeenByOwner;
    private List<Runnable> lossActions;
    private boolean told;

    HeldPermits(PermitCoordinator coordinator, String name, int limit, int permits, String owner, Session session,
                long fencingToken) {
        this.coordinator = coordinator;
        this.name = name;
        this.limit = limit;
        this.permits = permits;
        this.owner = owner;
        this.session = session;
        this.fencingToken = fencingToken;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public long fencingToken() {
        return fencingToken;
    }

    @Override
    public String owner() {
        return owner;
    }

    @Override
    public boolean isHeld() {
        synchronized (this) {
            if (status != Status.HELD) {
                return false;
            }
        }
        return coordinator.confirmed(session);
    }

    @Override
    public PermitHold onLeaseLost(Runnable action) {
        Objects.requireNonNull(action, "action");
        boolean runNow;
        synchronized (this) {
            if (status == Status.CLOSED) {
                return this;
            }
            runNow = status == Status.LOST;
            if (!runNow) {
                if (lossActions == null) {
                    lossActions = new ArrayList<>(2);
                }
                lossActions.add(action);
            }
        }
        if (runNow) {
            LockEvents.runLossAction(action, name);
        }
        return this;
    }

    /**
     * The permits are lost (reason for the owner's {@link LockLostException}).
     *
     * @return the loss actions to run, once; null when it was already lost or closed (nothing to report)
     */
    synchronized List<Runnable> lose(String reason) {
        if (status != Status.HELD) {
            return null;
        }
        status = Status.LOST;
        lossReason = reason;
        List<Runnable> actions = lossActions == null ? List.of() : lossActions;
        lossActions = null;
        return actions;
    }

    /** Whether a check or renewal found the permits lost (and the owner has not closed the hold yet). */
    synchronized boolean lost() {
        return status == Status.LOST;
    }

    @Override
    public void close() {
        Status was;
        synchronized (this) {
            was = status;
            if (was == Status.CLOSED) {
                return;
            }
            status = Status.CLOSED;
            lossActions = null;
        }
        if (was == Status.HELD && !coordinator.confirmed(session)) {
            was = Status.LOST; // the lease ran out unconfirmed before the renewer said so
            lossReason = "its session's lease (" + session.lease + ") ended unconfirmed";
        }
        try {
            coordinator.release(this, was == Status.LOST);
        } catch (LockStoreException failure) {
            if (coordinator.confirmed(session)) {
                throw failure; // let go in time: no loss; the session's checks give the permits back
            }
            // The lease ran out unconfirmed while the release waited for MongoDB: the permits may be another's now,
            // which a holder must hear as a loss (as a lock's holder does), with the store's failure attached.
            lossReason = "its session's lease (" + session.lease + ") ended unconfirmed while MongoDB could not be"
                    + " reached to give them back";
            LockLostException lost = lostException();
            lost.addSuppressed(failure);
            throw lost;
        }
        if (was == Status.LOST && !lossSeenByOwner) {
            throw lostException();
        }
    }

    private LockLostException lostException() {
        lossSeenByOwner = true;
        String overlap = limit == ReadWriteStore.WHOLE ? "with other holders' access" : "with other holders beyond the limit of " + limit;
        return new LockLostException(name, fencingToken, "The " + describe() + " (token " + fencingToken + ") was lost before"
                + " this close: " + lossReason + ". Work done under it may have overlapped " + overlap + ".");
    }

    /** Whether the loss is known here (a re-entry of a read-write hold refuses a lost one). */
    synchronized boolean isLost() {
        return status == Status.LOST;
    }

    /** What this hold is, for messages: permits of a semaphore, or read or write access to a read-write lock. */
    String describe() {
        if (limit == ReadWriteStore.WHOLE) {
            return (permits == ReadWriteStore.WHOLE ? "write" : "read") + " access to read-write lock " + LockArguments.quote(name);
        }
        return permits + " permit(s) of semaphore " + LockArguments.quote(name);
    }

    /** The loss was reported: its actions have run (called on the notice thread after them). */
    synchronized void told() {
        told = true;
        notifyAll();
    }

    /** For the test kit's controls: waits until the loss was reported; false when it was not within the time. */
    synchronized boolean awaitTold(long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        while (!told) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(left / 1_000_000, 1));
        }
        return true;
    }

    @Override
    public String toString() {
        return "PermitHold[name=" + name + ", permits=" + permits + ", token=" + fencingToken + ", owner=" + owner + "]";
    }

}
