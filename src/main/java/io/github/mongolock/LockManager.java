package io.github.mongolock;

import java.time.Duration;
import java.util.Collection;
import java.util.Optional;

/**
 * Hands out {@link LockSession}s for named, cluster-wide locks.
 *
 * <p>A lock belongs to the caller that acquired it, not to a thread: each fresh acquisition has an
 * owner id of its own. A nested acquire by a caller still inside its hold (on the thread the hold is
 * bound to, see {@link LockSession}) re-enters: the hold count grows, the fencing token stays. Every
 * other caller, whatever thread it runs on, waits; two managers behave like two machines even inside
 * one JVM. Implementations are thread-safe; one instance is meant to be shared by the whole application.
 *
 * <pre>{@code
 * try (LockSession lock = locks.acquire("invoice-run")) {
 *     billing.run(lock.fencingToken());
 * }
 * }</pre>
 */
public interface LockManager {

    /**
     * Acquires {@code name}, waiting up to the manager's default wait time.
     *
     * @throws LockTimeoutException  when another owner still holds the lock at the end of the wait
     * @throws LockStoreException    when MongoDB cannot be reached or refuses the operation
     * @throws LockLostException     when a caller inside a hold re-enters a lock whose lease was lost
     * @throws LockInterruptedException when the thread is interrupted while waiting
     * @throws LockConfigurationException when the name breaks the naming rules
     */
    default LockSession acquire(String name) {
        return acquire(name, LockOptions.defaults());
    }

    /**
     * Acquires {@code name}, waiting up to {@code waitFor}; {@link Duration#ZERO} makes exactly one
     * attempt. Exceptions as for {@link #acquire(String)}.
     */
    LockSession acquire(String name, Duration waitFor);

    /**
     * Acquires {@code name} with per-call wait and lease times (unset ones take the manager's
     * defaults). Exceptions as for {@link #acquire(String)}.
     */
    LockSession acquire(String name, LockOptions options);

    /** Makes exactly one attempt and never waits; empty when another owner holds the lock. */
    default Optional<LockSession> tryAcquire(String name) {
        return tryAcquire(name, LockOptions.defaults().waitTime(Duration.ZERO));
    }

    /**
     * Waits up to the options' wait time like {@link #acquire(String, LockOptions)}, but answers
     * empty instead of throwing {@link LockTimeoutException} when the lock stays busy.
     */
    Optional<LockSession> tryAcquire(String name, LockOptions options);

    /**
     * The lock as stored now, judged by the database's clock: empty when nobody holds it (never
     * acquired, released, or its lease has run out).
     */
    Optional<LockInfo> inspect(String name);

    /**
     * The leased semaphore {@code name}: at most {@code limit} permits held at once across every manager that uses the
     * name (see {@link Permits}). Nothing is written until its first acquire; a semaphore that exists with another
     * limit is refused then, with both limits named. Semaphore names are their own namespace: a lock of the same name is
     * another thing.
     *
     * @throws LockConfigurationException when the name breaks the naming rules or the limit is below 1
     */
    Permits permits(String name, int limit);

    /**
     * Acquires every lock in {@code names}, all or nothing, waiting up to the manager's default wait time for
     * the whole set: the distinct names (duplicates collapsed) are each checked against the naming rules
     * before anything is written, then taken one at a time in their canonical order ({@link String#compareTo}),
     * so that callers wanting overlapping sets never deadlock. Each part is acquired exactly as
     * {@link #acquire(String, LockOptions)} would (a name the caller is already inside re-enters) and gets what
     * is left of the one wait time; once it has run out, each remaining part gets one attempt. When a part
     * stays busy or any part fails, the parts already taken are released, in reverse order, before the
     * exception is thrown: nothing of the set is held afterwards.
     *
     * @throws LockTimeoutException  when a part is still held by another owner at the end of the wait; names that part
     * @throws LockConfigurationException when {@code names} is empty or a name breaks the naming rules
     * @throws LockStoreException    when MongoDB cannot be reached or refuses the operation
     * @throws LockLostException     when a name the caller is inside is re-entered after its lease was lost
     * @throws LockInterruptedException when the thread is interrupted while waiting
     */
    default LockSet acquireAll(Collection<String> names) {
        return acquireAll(names, LockOptions.defaults());
    }

    /**
     * {@link #acquireAll(Collection)} with per-call options: the wait time is the whole set's, the lease time,
     * minimum hold, lease-loss policy and metrics group apply to every part.
     */
    LockSet acquireAll(Collection<String> names, LockOptions options);

    /**
     * Makes exactly one attempt per part and never waits; empty (nothing held) when a part is held by another
     * owner. Other failures as for {@link #acquireAll(Collection)}.
     */
    default Optional<LockSet> tryAcquireAll(Collection<String> names) {
        return tryAcquireAll(names, LockOptions.defaults().waitTime(Duration.ZERO));
    }

    /**
     * Waits up to the options' wait time like {@link #acquireAll(Collection, LockOptions)}, but answers empty
     * (nothing held) instead of throwing {@link LockTimeoutException} when a part stays busy.
     */
    Optional<LockSet> tryAcquireAll(Collection<String> names, LockOptions options);

    /**
     * The leased read-write lock {@code name}: many readers at once or one writer, across every manager that uses the
     * name, with writer preference, re-entry of each mode, downgrade and a refused upgrade (see {@link ReadWriteLock}).
     * Nothing is written until its first acquire. Read-write lock names are their own namespace.
     *
     * @throws LockConfigurationException when the name breaks the naming rules
     */
    ReadWriteLock readWriteLock(String name);
}
