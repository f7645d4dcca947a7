package io.github.mongolock;

import java.util.List;
import java.util.Map;

/**
 * One hold of several locks taken together, all or nothing, by {@link LockManager#acquireAll}: one
 * {@link LockSession} per distinct name, taken in the names' canonical order ({@link String#compareTo}, after
 * duplicates were collapsed), so that two callers wanting overlapping sets never wait for each other in a
 * circle.
 *
 * <pre>{@code
 * try (LockSet accounts = locks.acquireAll(List.of("account-" + from, "account-" + to))) {
 *     transfers.move(from, to, cents, accounts.fencingToken("account-" + from));
 * }
 * }</pre>
 *
 * <p>Each part is an ordinary session: its own fencing token, lease, re-entry and loss report; the set adds
 * nothing to the stored documents. The set is held while every part is: a lost lease of one part makes
 * {@link #isHeld()} false and runs the {@link #onLeaseLost(Runnable)} actions, and the other parts stay held
 * until {@link #close()}. Closing releases every part, in reverse canonical order. Thread-safe; bound to the
 * acquiring thread as its sessions are (see {@link LockSession}).
 */
public interface LockSet extends AutoCloseable {

    /** The distinct names, in canonical order (the order they were taken in). */
    List<String> names();

    /** The parts, one per name, in canonical order. Closing one releases that part only: close the set instead. */
    List<LockSession> sessions();

    /**
     * The fencing token of the part named {@code name} (see {@link LockSession#fencingToken()}).
     *
     * @throws LockConfigurationException when {@code name} is not one of {@link #names()}
     */
    long fencingToken(String name);

    /** Every part's fencing token by name, in canonical order. Unmodifiable. */
    Map<String, Long> fencingTokens();

    /** {@code true} while every part {@linkplain LockSession#isHeld() is held}; false once any is lost or closed. */
    boolean isHeld();

    /**
     * Runs {@code action} once when the lease of any part is found lost while the set is open (at once when one
     * is already known lost), on the thread {@link LockSession#onLeaseLost(Runnable)} names for that part.
     * Later losses of other parts do not run it again. The other parts stay held until the set is closed.
     *
     * @return this set
     */
    LockSet onLeaseLost(Runnable action);

    /**
     * {@link LockSession#detach() Detaches} every part from the thread it is bound to. Idempotent.
     *
     * @return this set
     */
    LockSet detach();

    /**
     * {@link LockSession#attach() Attaches} every part to the calling thread, so nested acquires of its names made
     * here re-enter.
     *
     * @return this set
     * @throws LockException when the set is already closed
     */
    LockSet attach();

    /**
     * Releases every part, in reverse canonical order, each once, even when an earlier one fails. Idempotent.
     *
     * @throws LockLostException  when a part's lease was lost while the set was held (as {@link LockSession#close()})
     * @throws LockStoreException when MongoDB could not be told of a part's release (that part then frees itself
     *                            when its lease ends); further failures are attached as suppressed exceptions
     */
    @Override
    void close();
}
