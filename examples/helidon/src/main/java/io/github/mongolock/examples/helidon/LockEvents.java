package io.github.mongolock.examples.helidon;

import io.github.mongolock.LockEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Counts the lock events mongolock fires as CDI events, by kind and lock name. */
@ApplicationScoped
public class LockEvents {

    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    void onLock(@Observes LockEvent event) {
        counts.computeIfAbsent(event.kind() + " " + event.name(), key -> new AtomicLong()).incrementAndGet();
    }

    public long count(LockEvent.Kind kind, String name) {
        AtomicLong count = counts.get(kind + " " + name);
        return count == null ? 0 : count.get();
    }
}
