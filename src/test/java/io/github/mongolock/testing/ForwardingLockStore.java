package io.github.mongolock.testing;

import io.github.mongolock.LockInfo;
import io.github.mongolock.core.AcquireAttempt;
import io.github.mongolock.core.LeaseClaim;
import io.github.mongolock.core.RenewalOutcome;
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
    public AcquireAttempt tryAcquire(String name, String owner, Duration lease) {
        return real.tryAcquire(name, owner, lease);
    }

    @Override
    public AcquireAttempt takeOver(String name, String owner, Duration lease, Sighting sighting) {
        return real.takeOver(name, owner, lease, sighting);
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
    public AcquireAttempt handOver(String name, String owner, long version, String newOwner, Duration lease) {
        return real.handOver(name, owner, version, newOwner, lease);
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
    public RenewalOutcome renew(Collection<LeaseClaim> claims) {
        return real.renew(claims);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return real.inspect(name);
    }
}
