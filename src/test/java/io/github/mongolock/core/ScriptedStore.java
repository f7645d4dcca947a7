package io.github.mongolock.core;

import io.github.mongolock.LockInfo;
import io.github.mongolock.LockStoreException;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real store with faults switched on by the test: renewals that hang (a paused process or a
 * stalled network), renewals that fail (MongoDB unreachable), an acquisition whose answer is lost
 * after the write landed.
 */
final class ScriptedStore implements LockStore {

    private final LockStore real;
    private volatile CountDownLatch renewalGate = new CountDownLatch(0);
    private volatile boolean renewalsFail;
    private volatile boolean releasesFail;
    private volatile boolean loseNextAcquireAnswer;
    final AtomicInteger renewCalls = new AtomicInteger();
    final AtomicInteger acquireCalls = new AtomicInteger();

    ScriptedStore(LockStore real) {
        this.real = real;
    }

    void pauseRenewals() {
        renewalGate = new CountDownLatch(1);
    }

    void resumeRenewals() {
        renewalGate.countDown();
    }

    void failRenewals(boolean fail) {
        renewalsFail = fail;
    }

    void failReleases(boolean fail) {
        releasesFail = fail;
    }

    void loseNextAcquireAnswer() {
        loseNextAcquireAnswer = true;
    }

    @Override
    public AcquireAttempt tryAcquire(String name, String owner, Duration lease) {
        acquireCalls.incrementAndGet();
        AcquireAttempt attempt = real.tryAcquire(name, owner, lease);
        if (loseNextAcquireAnswer) {
            loseNextAcquireAnswer = false;
            throw new LockStoreException("connection reset before the answer arrived (scripted)", new RuntimeException());
        }
        return attempt;
    }

    @Override
    public boolean reenter(String name, String owner, long version) {
        return real.reenter(name, owner, version);
    }

    @Override
    public boolean release(String name, String owner, long version, int remainingHolds) {
        if (releasesFail) {
            throw new LockStoreException("MongoDB unreachable (scripted)", new RuntimeException());
        }
        return real.release(name, owner, version, remainingHolds);
    }

    @Override
    public void abandon(String name, String owner) {
        real.abandon(name, owner);
    }

    @Override
    public Set<String> renew(Collection<LeaseClaim> claims) {
        renewCalls.incrementAndGet();
        try {
            renewalGate.await();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new LockStoreException("renewal interrupted", interrupted);
        }
        if (renewalsFail) {
            throw new LockStoreException("MongoDB unreachable (scripted)", new RuntimeException());
        }
        return real.renew(claims);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return real.inspect(name);
    }
}
