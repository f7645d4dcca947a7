package io.github.mongolock.election;

import io.github.mongolock.Leadership;
import io.github.mongolock.LeadershipListener;
import io.github.mongolock.LeadershipOptions;
import io.github.mongolock.LockManager;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The one public door into leader election's implementation, for {@link io.github.mongolock.LeaderElections}:
 * it starts a candidate. The candidate's polling and state ({@code ElectionCandidate}) and the ordered delivery
 * of its listener callbacks ({@code OrderedCallbacks}) stay package-private here, so the root package holds
 * only what applications name. Not for applications: they join elections through {@code LeaderElections}.
 */
public final class ElectionCandidates {

    private ElectionCandidates() {
    }

    /**
     * A candidate for the election {@code name}, already polling: its first attempt is scheduled at once on
     * {@code scheduler}, which polls for every election of the caller. The arguments are the caller's,
     * already checked.
     *
     * @param joined the caller's candidates by election: the new one is put there before its first poll (a
     *               listener of that poll may already close it), and removed when it leaves the election
     */
    public static Leadership start(String name, LockManager locks, LeadershipOptions options,
                                   LeadershipListener listener, ScheduledExecutorService scheduler,
                                   Map<String, Leadership> joined) {
        ElectionCandidate[] self = new ElectionCandidate[1];
        self[0] = new ElectionCandidate(name, locks, options, listener, scheduler, () -> joined.remove(name, self[0]));
        joined.put(name, self[0]);
        self[0].start();
        return self[0];
    }
}
