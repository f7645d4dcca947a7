package io.github.mongolock.cdi;

import io.github.mongolock.LeadershipGranted;
import io.github.mongolock.LeadershipRevoked;
import io.github.mongolock.RevocationReason;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What an application writes to follow its leaderships: observers of {@link LeadershipGranted} and
 * {@link LeadershipRevoked}. Every container ("node") of a test records into one list shared by the JVM,
 * with its instance id, the nanoTime the event arrived, and whether the node still answered leader then.
 */
@ApplicationScoped
public class LeadershipEventsLog {

    /** One event as a node saw it. */
    public record Entry(String node, String election, boolean granted, long term, RevocationReason reason, long at,
                        String thread, boolean leaderThen) {
    }

    static final List<Entry> ENTRIES = new CopyOnWriteArrayList<>();

    @Inject
    LockStoreStatus store;

    @Inject
    Leaderships leaderships;

    private String node;

    @PostConstruct
    void node() {
        node = store.instanceId();
    }

    void granted(@Observes LeadershipGranted event) {
        long at = System.nanoTime();
        ENTRIES.add(new Entry(node, event.name(), true, event.term(), null, at, Thread.currentThread().getName(),
                leaderships.isLeader(event.name())));
    }

    void revoked(@Observes LeadershipRevoked event) {
        long at = System.nanoTime();
        ENTRIES.add(new Entry(node, event.name(), false, event.term(), event.reason(), at, Thread.currentThread().getName(),
                leaderships.isLeader(event.name())));
    }

    static List<Entry> of(String node) {
        return ENTRIES.stream().filter(entry -> entry.node().equals(node)).toList();
    }

    static List<Entry> granted() {
        return ENTRIES.stream().filter(Entry::granted).toList();
    }
}
