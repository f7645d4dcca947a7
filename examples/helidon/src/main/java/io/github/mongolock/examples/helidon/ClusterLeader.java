package io.github.mongolock.examples.helidon;

import io.github.mongolock.LeadershipGranted;
import io.github.mongolock.LeadershipRevoked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Follows the election {@code example-leader} ({@code mongolock.leadership.names}) through its CDI events.
 * Whether this instance leads right now is {@code Leaderships.isLeader}: the events can arrive late.
 */
@ApplicationScoped
public class ClusterLeader {

    public static final String ELECTION = "example-leader";

    private final AtomicLong lastGrantedTerm = new AtomicLong();
    private final AtomicReference<String> lastRevocation = new AtomicReference<>("none");

    void granted(@Observes LeadershipGranted granted) {
        lastGrantedTerm.set(granted.term());
    }

    void revoked(@Observes LeadershipRevoked revoked) {
        lastRevocation.set("term " + revoked.term() + ": " + revoked.reason()); // a real leader stops its leader-only work here
    }

    public long lastGrantedTerm() {
        return lastGrantedTerm.get();
    }

    public String lastRevocation() {
        return lastRevocation.get();
    }
}
