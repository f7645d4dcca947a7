package io.github.mongolock;

import java.util.Optional;

/**
 * A leased counting semaphore: at most {@link #limit()} permits of {@link #name()} are held at once across every
 * manager that uses the name. Got from {@code MongoLockManager.permits(name, limit)}; cheap to create, thread-safe,
 * and holding nothing itself.
 *
 * <p>Permits are leased by the holder's session, like locks: nothing is renewed per permit, and the permits of a
 * holder that crashed are granted to others once its session was found unrenewed for its lease and ended by a
 * compare-and-set. Each grant gets a fencing token greater than every earlier grant's of the name. Permits are not
 * re-entrant: every acquire takes new permits, also by a caller that holds some (as Redisson's and Curator's
 * semaphores), and a hold gives back exactly what it took.
 *
 * <pre>{@code
 * Permits exports = locks.permits("export", 3);
 * try (PermitHold hold = exports.acquire()) {
 *     exporter.run(hold.fencingToken());
 * }
 * }</pre>
 */
public interface Permits {

    /** The semaphore's name (its own namespace: a lock of the same name is another thing). */
    String name();

    /** How many permits may be held at once: part of the name's contract, the same on every manager. */
    int limit();

    /**
     * One permit, waiting up to the manager's default wait time.
     *
     * @throws LockTimeoutException       when no permit came free within the wait
     * @throws LockConfigurationException when the semaphore exists with another limit (nothing written)
     * @throws LockStoreException         when MongoDB cannot be reached or refuses the operation
     * @throws LockInterruptedException   when the thread is interrupted while waiting
     */
    PermitHold acquire();

    /**
     * {@code permits} permits at once (all or none), with the options' wait and lease times and lease-loss policy
     * ({@link OnLeaseLost#INTERRUPT}: the acquiring thread is interrupted when the lease is lost while the hold is
     * open) and metrics group. Exceptions as for {@link #acquire()}.
     *
     * @throws LockConfigurationException when {@code permits} is not within 1 and {@link #limit()}, when the options
     *                                    set a minimum hold (locks only), or when a wait or lease time is out of range
     */
    PermitHold acquire(int permits, LockOptions options);

    /** One attempt for one permit, never waiting; empty when none is free. */
    Optional<PermitHold> tryAcquire();

    /** As {@link #acquire(int, LockOptions)}, but empty instead of {@link LockTimeoutException} when none came free. */
    Optional<PermitHold> tryAcquire(int permits, LockOptions options);

    /**
     * The semaphore as stored now, with every holder of every manager: one read, nothing written. A holder listed may
     * be one whose session ended (its permits are taken back by the next waiter that finds too few free).
     *
     * @return empty when no permit of the name was ever granted (the semaphore is created by its first grant)
     * @throws LockStoreException when MongoDB cannot be reached or refuses the read
     */
    Optional<PermitsInfo> inspect();
}
