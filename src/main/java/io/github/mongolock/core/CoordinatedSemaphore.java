package io.github.mongolock.core;

import io.github.mongolock.LockOptions;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.PermitHold;
import io.github.mongolock.Permits;
import io.github.mongolock.PermitsInfo;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/** One semaphore of a manager, as {@link PermitCoordinator#permits} returns it: the API over the coordinator. Immutable. */
final class CoordinatedSemaphore implements Permits {

    private final PermitCoordinator coordinator;
    private final PermitReports reports;
    private final PermitStore store;
    private final String name;
    private final int limit;
    private final Duration defaultWait;

    CoordinatedSemaphore(PermitCoordinator coordinator, PermitReports reports, PermitStore store, String name, int limit,
                         Duration defaultWait) {
        this.coordinator = coordinator;
        this.reports = reports;
        this.store = store;
        this.name = name;
        this.limit = limit;
        this.defaultWait = defaultWait;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int limit() {
        return limit;
    }

    @Override
    public PermitHold acquire() {
        return acquire(1, LockOptions.defaults());
    }

    @Override
    public PermitHold acquire(int permits, LockOptions options) {
        Objects.requireNonNull(options, "options");
        Duration wait = options.waitTime().orElse(defaultWait);
        return reports.acquire(permits, options, true, () -> coordinator.acquire(name, limit, permits, options)
                .orElseThrow(() -> new LockTimeoutException(name,
                        "No " + permits + " permit(s) of semaphore " + LockArguments.quote(name) + " (limit " + limit
                                + ") came free within " + wait + ": raise the wait time, or the limit everywhere at once.")));
    }

    @Override
    public Optional<PermitHold> tryAcquire() {
        return tryAcquire(1, LockOptions.defaults().waitTime(Duration.ZERO));
    }

    @Override
    public Optional<PermitHold> tryAcquire(int permits, LockOptions options) {
        Objects.requireNonNull(options, "options");
        return Optional.ofNullable(reports.acquire(permits, options, false,
                () -> coordinator.acquire(name, limit, permits, options).orElse(null)));
    }

    @Override
    public Optional<PermitsInfo> inspect() {
        return store.inspect(name).map(PermitReports::info);
    }

    @Override
    public String toString() {
        return "Permits[name=" + name + ", limit=" + limit + "]";
    }
}
