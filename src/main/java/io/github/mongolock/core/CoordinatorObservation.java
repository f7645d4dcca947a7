package io.github.mongolock.core;

import io.github.mongolock.LockMetrics;
import java.util.Map;

/** What the metrics observe of a {@link LockCoordinator} while it is open: read at each collection, never copied. */
record CoordinatorObservation(String instanceId, OwnedLocks owned, ReleaseFeed feed, PermitReports permits)
        implements LockMetrics.Observed {

    @Override
    public Map<String, Long> permitsHeldByGroup() {
        return permits.heldByGroup();
    }

    @Override
    public Map<String, Long> readWriteHeldByGroup(io.github.mongolock.ReadWriteHold.Mode mode) {
        return permits.readWrite.heldByGroup(mode);
    }

    @Override
    public Map<String, Long> locksHeldByGroup() {
        return owned.heldByGroup();
    }

    @Override
    public String pushWakeUp() {
        return feed.status().name();
    }
}
