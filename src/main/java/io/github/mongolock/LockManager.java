package io.github.mongolock;

import java.time.Duration;
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
    LockSession acquire(String name);

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
    Optional<LockSession> tryAcquire(String name);

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
}
