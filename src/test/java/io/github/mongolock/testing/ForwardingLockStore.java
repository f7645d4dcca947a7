package io.github.mongolock.testing;

import io.github.mongolock.LockInfo;
import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.LeaseClaim;
import io.github.mongolock.core.SessionCheck;
import io.github.mongolock.core.SessionRenewal;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.Sighting;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.OptionalLong;

/** A store that hands every call to a real one: tests override the calls they script or observe. */
public abstract class ForwardingLockStore implements LockStore {

    protected final LockStore real;

    protected ForwardingLockStore(LockStore real) {
        this.real = real;
    }

    @Override
    public AcquireAttempt tryAcquire(String name, String owner, String session) {
        return real.tryAcquire(name, owner, session);
    }

    @Override
    public AcquireAttempt takeOver(String name, String owner, String session, Sighting sighting) {
        return real.takeOver(name, owner, session, sighting);
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
    public AcquireAttempt handOver(String name, String owner, long version, String newOwner, String session) {
        return real.handOver(name, owner, version, newOwner, session);
    }

    @Override
    public boolean reenter(String name, String owner, long version) {
        return real.reenter(name, owner, version);
    }

    @Override
    public boolean release(String name, String owner, long version, int remainingHolds) {
        return real.release(name, owner, version, remainingHolds);
    }

    @Override
    public boolean releaseKeeping(String name, String owner, long version, Duration keepFor) {
        return real.releaseKeeping(name, owner, version, keepFor);
    }

    @Override
    public OptionalLong resync(String name, String owner, String leaseId, int holds) {
        return real.resync(name, owner, leaseId, holds);
    }

    @Override
    public void abandon(String name, String owner) {
        real.abandon(name, owner);
    }

    @Override
    public String openSession(String manager, Duration lease) {
        return real.openSession(manager, lease);
    }

    @Override
    public SessionRenewal renewSession(String session) {
        return real.renewSession(session);
    }

    @Override
    public void endSession(String session) {
        real.endSession(session);
    }

    @Override
    public SessionCheck checkSession(String session, Collection<LeaseClaim> claims) {
        return real.checkSession(session, claims);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return real.inspect(name);
    }

    @Override
    public java.time.Duration lateWritesWithin() {
        return real.lateWritesWithin();
    }
}
