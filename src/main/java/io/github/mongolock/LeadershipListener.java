package io.github.mongolock;

/**
 * Told when one {@link Leadership} becomes leader and when it stops. For one election the calls come
 * in order and one at a time, never concurrently: {@code granted}, {@code revoked}, {@code granted},
 * ... with the same term in a {@code granted} and the {@code revoked} that follows it; never two
 * {@code granted} without a {@code revoked} between them.
 *
 * <p><b>Threads.</b> {@code granted} runs on the elections' scheduler thread. {@code revoked} runs on
 * the lock manager's {@code mongolock-notices} thread when the lease is lost (at the lease's end,
 * before another candidate can take the lock over; or on the scheduler thread, if the leader's own poll
 * noticed first), and on the calling thread for {@link Leadership#stepDown()} and
 * {@link Leadership#close()}. To keep the order, a callback due while another of the same election is
 * still running is run by that other thread right after it (so a {@code granted} not yet delivered when
 * {@code stepDown()} is called elsewhere runs on the stepping-down thread, just before its
 * {@code revoked}). Keep both short: a slow {@code granted} delays the {@code revoked} that follows it
 * (and a step-down waits for it, up to a lease, before releasing), and a slow listener of one election
 * delays the polls of the others. An exception thrown by a listener is logged and changes nothing.
 *
 * <p>A callback reports a change; {@link Leadership#isLeader()} is the answer that counts at any
 * instant (it may turn false just before {@code revoked} is delivered, and true just before
 * {@code granted} is).
 */
public interface LeadershipListener {

    /** This candidate became leader for the term {@code term} (the election lock's fencing token). */
    void granted(long term);

    /** This candidate is no longer leader for the term {@code term}, for {@code reason}. */
    void revoked(long term, RevocationReason reason);
}
