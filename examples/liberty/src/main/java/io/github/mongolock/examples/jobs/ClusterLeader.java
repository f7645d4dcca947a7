package io.github.mongolock.examples.jobs;

import io.github.mongolock.LeadershipGranted;
import io.github.mongolock.LeadershipRevoked;
import io.github.mongolock.cdi.Leaderships;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.OptionalLong;

/**
 * The leader election case: every instance of the application joins the election "example-leader"
 * ({@code mongolock.leadership.names} in microprofile-config.properties) when it starts; one of them is
 * leader at a time. Work that only the leader should do asks {@link Leaderships#term} right before it,
 * and passes the term on to fence its writes (a leader paused past its lease must not overwrite its
 * successor's). The events tell when the leadership comes and goes, e.g. to start and stop a loop.
 */
@ApplicationScoped
public class ClusterLeader {

    static final String ELECTION = "example-leader";

    @Inject
    Leaderships leaderships;

    private volatile String lastEvent = "none yet";

    void granted(@Observes LeadershipGranted event) {
        lastEvent = "granted " + event.name() + ", term " + event.term();
    }

    void revoked(@Observes LeadershipRevoked event) {
        lastEvent = "revoked " + event.name() + ", term " + event.term() + " (" + event.reason() + ")";
    }

    /** This instance's view of the election now. */
    public Status status() {
        OptionalLong term = leaderships.term(ELECTION);
        return new Status(ELECTION, term.isPresent(), term.isPresent() ? term.getAsLong() : 0, lastEvent);
    }

    /** Gives the leadership up (another instance takes it at its next poll). */
    public boolean stepDown() {
        return leaderships.stepDown(ELECTION);
    }

    /** @param term the current term while leader, 0 otherwise */
    public record Status(String election, boolean leader, long term, String lastEvent) {
    }
}
