package io.github.mongolock.core;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link LockSet}: the sessions {@link LockSets} took, in canonical order. Holds no state of its own besides
 * them; everything a part does (renewal, loss, release) is its session's. Thread-safe.
 */
final class HeldLockSet implements LockSet {

    private final List<LockSession> sessions;
    private final List<String> names;
    private final Map<String, Long> tokens;

    HeldLockSet(List<LockSession> sessions) {
        this.sessions = List.copyOf(sessions);
        this.names = this.sessions.stream().map(LockSession::name).toList();
        Map<String, Long> byName = new LinkedHashMap<>();
        this.sessions.forEach(session -> byName.put(session.name(), session.fencingToken()));
        this.tokens = Collections.unmodifiableMap(byName);
    }

    @Override
    public List<String> names() {
        return names;
    }

    @Override
    public List<LockSession> sessions() {
        return sessions;
    }

    @Override
    public long fencingToken(String name) {
        Long token = tokens.get(name);
        if (token == null) {
            throw new LockConfigurationException("Lock " + LockArguments.quote(String.valueOf(name)) + " is not part of the set "
                    + names + ": ask for the token of one of its names.");
        }
        return token;
    }

    @Override
    public Map<String, Long> fencingTokens() {
        return tokens;
    }

    @Override
    public boolean isHeld() {
        return sessions.stream().allMatch(LockSession::isHeld);
    }

    @Override
    public LockSet onLeaseLost(Runnable action) {
        AtomicBoolean ran = new AtomicBoolean();
        Runnable once = () -> {
            if (ran.compareAndSet(false, true)) {
                action.run();
            }
        };
        sessions.forEach(session -> session.onLeaseLost(once));
        return this;
    }

    @Override
    public LockSet detach() {
        sessions.forEach(LockSession::detach);
        return this;
    }

    @Override
    public LockSet attach() {
        sessions.forEach(LockSession::attach);
        return this;
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (int i = sessions.size() - 1; i >= 0; i--) {
            try {
                sessions.get(i).close();
            } catch (RuntimeException failure) {
                if (first == null) {
                    first = failure;
                } else {
                    first.addSuppressed(failure);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return "LockSet" + tokens;
    }
}
