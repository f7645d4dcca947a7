package io.github.mongolock.testing;

import io.github.mongolock.core.PermitAttempt;
import io.github.mongolock.core.PermitHolders;
import io.github.mongolock.core.PermitStore;
import java.util.List;
import java.util.Optional;

/**
 * A {@link PermitStore} that passes every call to another: fault-injecting test stores extend it and override only the
 * calls they hold back or fail, so that a method added to the interface needs no change in each of them.
 */
public class ForwardingPermitStore implements PermitStore {

    private final PermitStore real;

    public ForwardingPermitStore(PermitStore real) {
        this.real = real;
    }

    @Override
    public PermitAttempt tryAcquire(String name, int limit, int permits, String owner, String session) {
        return real.tryAcquire(name, limit, permits, owner, session);
    }

    @Override
    public PermitAttempt reclaim(String name, int limit, int permits, String owner, String session, PermitHolders.Seen stale) {
        return real.reclaim(name, limit, permits, owner, session, stale);
    }

    @Override
    public boolean release(String name, String owner, int permits) {
        return real.release(name, owner, permits);
    }

    @Override
    public List<HeldUnder> heldUnder(String session) {
        return real.heldUnder(session);
    }

    @Override
    public Optional<PermitHolders> inspect(String name) {
        return real.inspect(name);
    }

    @Override
    public void joinQueue(String name, String manager) {
        real.joinQueue(name, manager);
    }

    @Override
    public void leaveQueue(String name, String manager) {
        real.leaveQueue(name, manager);
    }

    @Override
    public void stillWaiting(String name, String manager) {
        real.stillWaiting(name, manager);
    }

    @Override
    public boolean dropStaleHead(String name, String head, long turn) {
        return real.dropStaleHead(name, head, turn);
    }
}
