package io.github.mongolock.mongo;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded set of session ids, the oldest forgotten first: memory stays bounded however many sessions a long-lived
 * store meets (a forgotten id only costs a write the next time). Thread-safe.
 */
final class RecentSessions {

    private final Map<String, Boolean> ids;

    RecentSessions(int capacity) {
        this.ids = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > capacity;
            }
        };
    }

    synchronized boolean contains(String session) {
        return ids.containsKey(session);
    }

    synchronized void add(String session) {
        ids.put(session, Boolean.TRUE);
    }
}
