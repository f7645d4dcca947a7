package io.github.mongolock.cdi;

import io.github.mongolock.Locked;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The deployment-time checks of {@code @Locked(access = READ | WRITE)}, shared by the portable extension and the
 * build-compatible one (both resolve methods through {@link LockedOperations}).
 */
final class ReadWriteAccess {

    private ReadWriteAccess() {
    }

    /**
     * Adds a problem for each member that does not fit read or write access: permits (CDI-030), several names
     * (CDI-031), a minimum hold (CDI-032), a returned stage (CDI-033). Nothing for {@code EXCLUSIVE}.
     */
    static void check(String label, Locked.Access access, int permits, Optional<Duration> holdAtLeast,
                      List<String> templates, boolean asynchronous, String returnType, List<String> problems) {
        if (access == Locked.Access.EXCLUSIVE) {
            return;
        }
        if (permits > 0) {
            problems.add(CdiMessages.accessWithPermits(label, access, permits));
        }
        if (templates.size() > 1) {
            problems.add(CdiMessages.accessWithSeveralNames(label, access, templates));
        }
        if (holdAtLeast.isPresent() && !holdAtLeast.get().isZero()) {
            problems.add(CdiMessages.accessWithMinimumHold(label, access));
        }
        if (asynchronous) {
            problems.add(CdiMessages.accessOnStage(label, access, returnType));
        }
    }
}
