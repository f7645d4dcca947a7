package io.github.mongolock.cdi;

import io.github.mongolock.LeaderElections;
import io.github.mongolock.Leadership;
import io.github.mongolock.LeadershipGranted;
import io.github.mongolock.LeadershipListener;
import io.github.mongolock.LeadershipOptions;
import io.github.mongolock.LeadershipRevoked;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockManager;
import io.github.mongolock.RevocationReason;
import jakarta.enterprise.event.Event;
import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The instance behind the application's {@link Leaderships} bean: {@link LeaderElections} over the
 * application's {@link LockManager}, joined to every configured election when created (at startup), whose
 * listeners fire {@link LeadershipGranted} and {@link LeadershipRevoked}. {@link #leave()} runs when the
 * application begins to stop, while observers still exist; events are muted after it. Thread-safe.
 */
final class ApplicationLeaderships implements Leaderships {

    private static final System.Logger LOG = System.getLogger(ApplicationLeaderships.class.getName());

    private final LeaderElections elections;
    private final Map<String, Leadership> joined = new LinkedHashMap<>();
    private volatile boolean muted;

    ApplicationLeaderships(LockManager locks, LeadershipSettings settings, Event<LeadershipGranted> granted,
                           Event<LeadershipRevoked> revoked) {
        this.elections = new LeaderElections(locks);
        for (Map.Entry<String, LeadershipOptions> election : settings.elections().entrySet()) {
            String name = election.getKey();
            joined.put(name, elections.join(name, election.getValue(), new LeadershipListener() {
                @Override
                public void granted(long term) {
                    if (!muted) {
                        granted.fire(new LeadershipGranted(name, term));
                    }
                }

                @Override
                public void revoked(long term, RevocationReason reason) {
                    if (!muted) {
                        revoked.fire(new LeadershipRevoked(name, term, reason));
                    }
                }
            }));
            LOG.log(Level.INFO, "mongolock joined the leader election \"" + name + "\" (" + election.getValue() + ")");
        }
    }

    @Override
    public List<String> names() {
        return List.copyOf(joined.keySet());
    }

    @Override
    public boolean isLeader(String election) {
        return leadership(election).isLeader();
    }

    @Override
    public OptionalLong term(String election) {
        return leadership(election).term();
    }

    @Override
    public boolean stepDown(String election) {
        return leadership(election).stepDown();
    }

    private Leadership leadership(String election) {
        Leadership leadership = election == null ? null : joined.get(election);
        if (leadership == null) {
            throw new LockConfigurationException("\"" + election + "\" is not an election of this application: it joined "
                    + names() + " (" + LeadershipSettings.NAMES + "). Add it there, or correct the name.");
        }
        return leadership;
    }

    /** Leaves every election (revoking, then releasing, each leadership held); later events are muted. Idempotent. */
    void leave() {
        boolean first = !muted;
        try {
            elections.close();
        } finally {
            muted = true;
        }
        if (first && !joined.isEmpty()) {
            LOG.log(Level.INFO, "mongolock left the leader elections " + names());
        }
    }

    @Override
    public String toString() {
        return "mongolock Leaderships" + joined.values();
    }
}
