package io.github.mongolock;

import io.github.mongolock.core.LockArguments;
import io.github.mongolock.election.ElectionCandidates;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Leader elections over a {@link LockManager}: each election is a lock of that name, and the candidate
 * holding it is the leader, for a term that is the lock's fencing token (so terms grow with every
 * election). Built on the public lock API only; the lock manager renews the leader's lease with its
 * other leases.
 *
 * <pre>{@code
 * LeaderElections elections = new LeaderElections(locks);
 * Leadership billing = elections.join("billing-leader", new LeadershipListener() {
 *     public void granted(long term) { scheduler.start(term); }
 *     public void revoked(long term, RevocationReason why) { scheduler.stop(); }
 * });
 * ...
 * if (billing.isLeader()) { ... }            // or billing.term(), to fence the leader's writes
 * elections.close();                         // leaves every election, releasing what it leads
 * }</pre>
 *
 * <p><b>Threads.</b> One scheduler thread ({@code mongolock-leadership-...}, a daemon, started with
 * the first election) polls for every election joined here: no thread per election. Each candidate that
 * is not leader makes one {@code tryAcquire} (no waiting) per poll interval; a leader's poll only checks
 * its hold. Attempts of different elections run one after the other, so while MongoDB is slow to answer
 * (up to the manager's store timeout per attempt) the polls of many elections come later; leases are
 * not affected (the manager renews them on its own thread). Thread-safe; one instance per lock manager
 * is enough. No static state: two instances are independent.
 *
 * <p><b>The guarantee.</b> {@link Leadership#isLeader()} is true only while the lock is held with a
 * confirmed lease, evaluated at each call; it turns false when the lease ends unconfirmed, which is
 * before any other candidate can take the lock over (docs/protocol.md, "Leases and renewal"). So two candidates
 * never answer {@code true} at the same instant, as long as machine clocks run at nearly the same rate.
 * {@link LeadershipListener#revoked} is delivered when the lease ends; it is a notification, delivered
 * on a thread that may be late, so fence the leader's work with the term.
 *
 * <p><b>When MongoDB is down</b>, the leader stays leader until its lease has gone unconfirmed for a
 * whole lease time, then loses the leadership ({@link RevocationReason#LEASE_LOST}); candidates keep
 * polling (a failing streak is logged once) and one of them is elected when MongoDB answers again.
 */
public final class LeaderElections implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LeaderElections.class.getName());
    /** How long {@link #close()} waits for an attempt under way before it returns. */
    private static final long CLOSE_WAIT_SECONDS = 5;

    private final LockManager locks;
    private final ScheduledThreadPoolExecutor scheduler;
    private final Map<String, Leadership> joined = new ConcurrentHashMap<>();
    /** Guarded by {@code this}. */
    private boolean closed;
    private volatile Thread schedulerThread;

    /** Elections over {@code locks}, which stays the caller's: closing these elections does not close it. */
    public LeaderElections(LockManager locks) {
        this.locks = Objects.requireNonNull(locks, "locks");
        String threadName = "mongolock-leadership-" + Integer.toHexString(System.identityHashCode(this));
        // A core pool of one starts its thread with the first task: no thread until the first join.
        this.scheduler = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, threadName);
            thread.setDaemon(true);
            schedulerThread = thread;
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** Joins the election {@code name} with {@link LeadershipOptions#defaults()}; see {@link #join(String, LeadershipOptions, LeadershipListener)}. */
    public Leadership join(String name, LeadershipListener listener) {
        return join(name, LeadershipOptions.defaults(), listener);
    }

    /**
     * Joins the election {@code name} as a candidate: the first attempt is made at once on the scheduler
     * thread, then one every poll interval while not leader. Returns at once. The election's lock is the
     * lock named {@code name}: use a name no other code locks.
     *
     * @throws LockConfigurationException when the name is blank or breaks the lock name rules, when the
     *                                    poll interval is longer than the lease, or when this instance has
     *                                    already joined {@code name} and not left it
     * @throws NullPointerException       when {@code options} or {@code listener} is null
     * @throws LockException              when these elections are closed
     */
    public Leadership join(String name, LeadershipOptions options, LeadershipListener listener) {
        if (name != null && !name.isEmpty() && name.isBlank()) {
            throw new LockConfigurationException("Election name \"" + name + "\" is blank: give the name of the"
                    + " election's lock, e.g. \"billing-leader\".");
        }
        LockArguments.checkName(name);
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(listener, "listener");
        options.checked(name);
        synchronized (this) {
            if (closed) {
                throw new LockException("These leader elections are closed: election \"" + name
                        + "\" cannot be joined. Create a new LeaderElections.");
            }
            if (joined.containsKey(name)) {
                throw new LockConfigurationException("Election \"" + name + "\" is already joined by these leader"
                        + " elections: use the Leadership that join returned, or close it before joining again.");
            }
            return ElectionCandidates.start(name, locks, options, listener, scheduler, joined);
        }
    }

    /**
     * Leaves every election (each leadership held is revoked with {@link RevocationReason#LEFT}, then its
     * lock released), stops the scheduler thread and waits up to 5 s for an attempt under way. The lock
     * manager is left open. Idempotent.
     */
    @Override
    public void close() {
        List<Leadership> leaving;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            leaving = List.copyOf(joined.values());
        }
        for (Leadership candidate : leaving) {
            candidate.close();
        }
        scheduler.shutdown();
        if (Thread.currentThread() == schedulerThread) {
            return; // closed from a listener on the scheduler thread: it ends when this poll returns
        }
        try {
            if (!scheduler.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.log(Level.DEBUG, "mongolock: an election attempt was still under way " + CLOSE_WAIT_SECONDS
                        + " s after close(); a grant it brings back is released");
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "LeaderElections" + joined.values();
    }
}
