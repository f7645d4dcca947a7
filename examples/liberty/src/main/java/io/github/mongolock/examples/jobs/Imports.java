package io.github.mongolock.examples.jobs;

import io.github.mongolock.LockManager;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.OnLeaseLost;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;

/** The injected-LockManager case: the lock is taken and released in code, with try-with-resources. */
@ApplicationScoped
public class Imports {

    @Inject
    LockManager locks;

    public Result run(String importId) {
        // INTERRUPT: if the lease is lost mid-import, this thread is interrupted and the import stops.
        LockOptions options = LockOptions.defaults().waitTime(Duration.ofSeconds(2)).onLeaseLost(OnLeaseLost.INTERRUPT);
        try (LockSession lock = locks.acquire("import-" + importId, options);
             LockSession nested = locks.acquire("import-" + importId)) {
            // A helper that locks the same name again re-enters: same token, one more hold.
            return new Result(importId, lock.fencingToken(), nested.holdCount(), nested.fencingToken() == lock.fencingToken());
        }
    }

    public record Result(String importId, long token, int nestedHoldCount, boolean sameToken) {
    }
}
