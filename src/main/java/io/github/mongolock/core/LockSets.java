package io.github.mongolock.core;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockSet;
import io.github.mongolock.LockTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Multi-locks, written once for every {@link LockManager}: a thin client of its single acquire. The names are
 * checked, collapsed and sorted ({@link #canonical}); each part is then taken with the single acquire, in that
 * order, with what is left of one wait time; when a part stays busy or fails, the parts taken so far are
 * released in reverse order before the caller hears of it. Taking the parts in one global order is what keeps
 * two callers wanting overlapping sets from each holding what the other waits for (spec/MultiLock.tla).
 * Immutable and thread-safe.
 */
public final class LockSets {

    private static final System.Logger LOG = System.getLogger(LockSets.class.getName());

    private final LockManager locks;
    private final MonotonicClock clock;
    private final Duration defaultWait;
    private final Duration defaultLease;

    /**
     * @param locks        whose single acquire takes each part; its waiting, re-entry, fencing and loss reports apply
     * @param defaultWait  the wait for the whole set when the options set none
     * @param defaultLease checked with the options before anything is taken
     */
    public LockSets(LockManager locks, MonotonicClock clock, Duration defaultWait, Duration defaultLease) {
        this.locks = Objects.requireNonNull(locks, "locks");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.defaultWait = Objects.requireNonNull(defaultWait, "defaultWait");
        this.defaultLease = Objects.requireNonNull(defaultLease, "defaultLease");
    }

    /**
     * The distinct names in the order they are taken.
     *
     * @throws LockConfigurationException when there is no name or one breaks the naming rules
     */
    public static List<String> canonical(Collection<String> names) {
        if (names == null || names.isEmpty()) {
            throw new LockConfigurationException("A multi-lock needs at least one lock name, got " + (names == null ? "null" : "none")
                    + ": pass the names to take together, e.g. List.of(\"account-1\", \"account-2\").");
        }
        TreeSet<String> sorted = new TreeSet<>();
        for (String name : names) {
            sorted.add(LockArguments.checkName(name));
        }
        return List.copyOf(sorted);
    }

    /**
     * @param throwWhenBusy throw {@link LockTimeoutException} when a part stays busy, else answer empty
     */
    public Optional<LockSet> acquire(Collection<String> names, LockOptions options, boolean throwWhenBusy) {
        List<String> ordered = canonical(names);
        Objects.requireNonNull(options, "options");
        Duration wait = LockArguments.checkWait(options.waitTime().orElse(defaultWait), "waitTime");
        LockArguments.checkLease(options.leaseTime().orElse(defaultLease), "leaseTime");
        LockArguments.checkHoldAtLeast(options.holdAtLeast(), "holdAtLeast");
        long start = clock.nanoTime();
        long waitNanos = LockArguments.saturatedNanos(wait);
        List<LockSession> taken = new ArrayList<>(ordered.size());
        for (String name : ordered) {
            // One wait for the set: each part gets what is left of it, and one attempt once nothing is left.
            long left = Math.max(0, waitNanos - (clock.nanoTime() - start));
            LockOptions part = options.waitTime(Duration.ofNanos(left));
            try {
                if (throwWhenBusy) {
                    taken.add(locks.acquire(name, part));
                    continue;
                }
                Optional<LockSession> session = locks.tryAcquire(name, part);
                if (session.isEmpty()) {
                    releaseAfter(null, taken);
                    return Optional.empty();
                }
                taken.add(session.get());
            } catch (LockTimeoutException busy) {
                LockTimeoutException timeout = new LockTimeoutException(name, "Locks " + ordered
                        + " were not all acquired within " + wait + ": " + busy.getMessage() + " Nothing of the set is held"
                        + (taken.isEmpty() ? "" : " (released " + names(taken) + ", taken before it)")
                        + ". Retry later, or give the set a longer wait time.");
                timeout.initCause(busy);
                releaseAfter(timeout, taken);
                throw timeout;
            } catch (RuntimeException | Error failure) {
                releaseAfter(failure, taken);
                throw failure;
            }
        }
        return Optional.of(new HeldLockSet(taken));
    }

    /** Releases {@code taken} in reverse order, each once; release failures go to {@code failure} as suppressed. */
    private static void releaseAfter(Throwable failure, List<LockSession> taken) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            try {
                taken.get(i).close();
            } catch (RuntimeException releaseFailure) {
                if (failure != null) {
                    failure.addSuppressed(releaseFailure);
                } else {
                    // An empty tryAcquireAll has no exception to carry it. The part was lost or MongoDB is down:
                    // either way it is not renewed any more and frees itself when its lease ends.
                    LOG.log(System.Logger.Level.WARNING, "mongolock: lock " + LockArguments.quote(taken.get(i).name())
                            + ", taken for a multi-lock that then stayed busy, could not be released; it frees itself"
                            + " when its lease ends: " + releaseFailure.getMessage());
                }
            }
        }
    }

    private static List<String> names(List<LockSession> sessions) {
        return sessions.stream().map(LockSession::name).toList();
    }
}
