package io.github.mongolock.core;

import io.github.mongolock.LockInfo;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A store for the heap guards: grants every lock (token and lease id as MongoLockStore makes them), answers every
 * owner's call with success and remembers nothing, so whatever stays in the heap is the coordinator's. A test
 * overrides what it scripts.
 */
class GrantingStore implements LockStore {

    private final AtomicLong tokens = new AtomicLong();

    /** The used heap after full collections, the lowest of five: a collection that left garbage only adds bytes. */
    static long usedHeapAfterGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    @Override
    public AcquireAttempt tryAcquire(String name, String owner, String session) {
        long token = tokens.incrementAndGet();
        return new AcquireAttempt.Granted(token, 1, String.format("b%024x", token));
    }

    @Override
    public void joinQueue(String name, String manager) {
    }

    @Override
    public void leaveQueue(String name, String manager) {
    }

    @Override
    public AcquireAttempt handOver(String name, String owner, long version, String newOwner, String session) {
        return tryAcquire(name, newOwner, session);
    }

    @Override
    public AcquireAttempt takeOver(String name, String owner, String session, Sighting sighting) {
        return tryAcquire(name, owner, session);
    }

    @Override
    public boolean reenter(String name, String owner, long version) {
        return true;
    }

    @Override
    public boolean release(String name, String owner, long version, int remainingHolds) {
        return true;
    }

    @Override
    public boolean releaseKeeping(String name, String owner, long version, Duration keepFor) {
        return true;
    }

    @Override
    public OptionalLong resync(String name, String owner, String leaseId, int holds) {
        return OptionalLong.of(1);
    }

    @Override
    public void abandon(String name, String owner) {
    }

    @Override
    public String openSession(String manager, Duration lease) {
        return "session";
    }

    @Override
    public SessionRenewal renewSession(String session) {
        return new SessionRenewal(true, 0);
    }

    @Override
    public void endSession(String session) {
    }

    @Override
    public SessionCheck checkSession(String session, Collection<LeaseClaim> claims) {
        return new SessionCheck(List.of(), Map.of());
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return Optional.empty();
    }
}
