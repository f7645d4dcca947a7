package io.github.mongolock;

import java.util.OptionalLong;

/**
 * One candidate in one leader election, returned by {@link LeaderElections#join}: it polls for the
 * election's lock and is leader while it holds it. The election is the lock named {@link #name()}; the
 * term is that lock's fencing token, which grows with every election.
 *
 * <p><b>Fence the leader's work with the term.</b> A leader that is paused (GC, a frozen VM) past its
 * lease can go on running before it learns that it lost: pass {@link #term()} along with each write
 * and have the resource refuse a term lower than the highest it has seen, as with
 * {@link LockSession#fencingToken()}.
 *
 * <p>All methods are thread-safe and answer without I/O, except {@link #stepDown()} and {@link #close()},
 * which release the lock when leader.
 */
public interface Leadership extends AutoCloseable {

    /** The election's name, which is also the name of its lock. */
    String name();

    /**
     * Whether this candidate is leader now: it holds the election's lock and the lease is confirmed
     * ({@link LockSession#isHeld()}), evaluated at the call, never a cached flag. A {@code true} answer
     * means no other candidate can be leader at that instant (assuming machine clocks run at nearly
     * the same rate, see docs/protocol.md, "Leases and renewal"). Turns false when the lease ends unconfirmed,
     * before another candidate can take the lock over, and after {@link #stepDown()} or {@link #close()}.
     */
    boolean isLeader();

    /**
     * The current term while this candidate is leader (the same check as {@link #isLeader()}, made once,
     * so both answers come from one instant); empty when it is not.
     */
    OptionalLong term();

    /**
     * Gives up the current term, if leader: {@code revoked(term, STEPPED_DOWN)} is delivered, then the lock
     * is released, so another candidate can win at its next poll. When an earlier callback of this election
     * is still running on another thread (a slow {@code granted}), this waits for it and the {@code revoked},
     * up to a lease, before releasing. This candidate stays in the election but
     * makes no attempt for the next two poll intervals, which gives every other candidate polling on time
     * the first chance; if none takes the lock by then, it may win again (a new term). A candidate that
     * is not leader at the call also sits those two intervals out, and a grant it was just receiving
     * is given back at once. When MongoDB cannot be told, the lock is released when its lease ends
     * (logged). Called from inside a listener callback, the {@code revoked} is delivered as soon as that
     * callback returns.
     *
     * @return whether this candidate was leader and stepped down
     */
    boolean stepDown();

    /**
     * Leaves the election: no more attempts, and if leader, {@code revoked(term, LEFT)} is delivered, then
     * the lock is released (waiting for an earlier callback as {@link #stepDown()} does). An attempt under way on the scheduler thread is not waited for: a grant it
     * brings back is released without being reported. Idempotent.
     */
    @Override
    void close();
}
