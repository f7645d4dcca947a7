package io.github.mongolock.core;

import io.github.mongolock.LockStoreException;
import io.github.mongolock.testing.ForwardingLockStore;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A real store with faults switched on by the test: renewals that hang (a paused process or a
 * stalled network), renewals that fail (MongoDB unreachable), an acquisition whose answer is lost
 * after the write landed.
 */
final class ScriptedStore extends ForwardingLockStore {

    private volatile CountDownLatch renewalGate = new CountDownLatch(0);
    private volatile CountDownLatch releaseGate = new CountDownLatch(0);
    private volatile boolean renewalsFail;
    private volatile boolean releasesFail;
    private volatile boolean loseNextAcquireAnswer;
    private volatile boolean abandonsFail;
    private volatile StoreFault nextReentryFault;
    private volatile long nextReentryHangMillis;
    private volatile StoreFault nextReleaseFault;
    private volatile StoreFault nextHandOverFault;
    private final AtomicReference<Runnable> lateWrite = new AtomicReference<>();
    final AtomicInteger renewCalls = new AtomicInteger();
    final AtomicInteger acquireCalls = new AtomicInteger();
    final AtomicInteger handOverCalls = new AtomicInteger();
    final AtomicInteger queueCalls = new AtomicInteger();

    ScriptedStore(LockStore real) {
        super(real);
    }

    void pauseRenewals() {
        renewalGate = new CountDownLatch(1);
    }

    void resumeRenewals() {
        renewalGate.countDown();
    }

    /** Releases hang until {@link #resumeReleases()}: a MongoDB that does not answer. */
    void pauseReleases() {
        releaseGate = new CountDownLatch(1);
    }

    void resumeReleases() {
        releaseGate.countDown();
    }

    void failRenewals(boolean fail) {
        renewalsFail = fail;
    }

    void failReleases(boolean fail) {
        releasesFail = fail;
    }

    /** How the next call fails: whether MongoDB applied it, and whether the client can know it did not. */
    enum StoreFault {
        /** No server could be selected: the request never left the client. */
        NEVER_SENT,
        /** The connection broke after the write was applied: the answer is lost. */
        ANSWER_LOST,
        /**
         * The answer is lost and the write is still on its way: MongoDB applies it right after the next
         * clean-up write on the store (a request delayed in a router or a slow primary).
         */
        LANDS_LATE;

        LockStoreException exception() {
            return new LockStoreException("MongoDB unreachable (scripted " + this + ")", new RuntimeException(),
                    this != NEVER_SENT);
        }
    }

    void failNextReentry(StoreFault fault) {
        nextReentryFault = fault;
    }

    /** The next re-entry hangs for {@code hang} (MongoDB silent), then fails with {@code fault}. */
    void hangThenFailNextReentry(Duration hang, StoreFault fault) {
        nextReentryHangMillis = hang.toMillis();
        nextReentryFault = fault;
    }

    void failNextRelease(StoreFault fault) {
        nextReleaseFault = fault;
    }

    void failNextHandOver(StoreFault fault) {
        nextHandOverFault = fault;
    }

    void failAbandons(boolean fail) {
        abandonsFail = fail;
    }

    @Override
    public void abandon(String name, String owner) {
        if (abandonsFail) {
            throw new LockStoreException("MongoDB unreachable (scripted)", new RuntimeException());
        }
        real.abandon(name, owner);
        landLateWrite();
    }

    private void landLateWrite() {
        Runnable write = lateWrite.getAndSet(null);
        if (write != null) {
            write.run();
        }
    }

    void loseNextAcquireAnswer() {
        loseNextAcquireAnswer = true;
    }

    @Override
    public AcquireAttempt tryAcquire(String name, String owner, String session) {
        acquireCalls.incrementAndGet();
        AcquireAttempt attempt = real.tryAcquire(name, owner, session);
        if (loseNextAcquireAnswer) {
            loseNextAcquireAnswer = false;
            throw new LockStoreException("connection reset before the answer arrived (scripted)", new RuntimeException());
        }
        return attempt;
    }

    @Override
    public AcquireAttempt takeOver(String name, String owner, String session, Sighting sighting) {
        acquireCalls.incrementAndGet();
        return real.takeOver(name, owner, session, sighting);
    }

    @Override
    public AcquireAttempt handOver(String name, String owner, long version, String newOwner, String session) {
        handOverCalls.incrementAndGet();
        StoreFault fault = nextHandOverFault;
        nextHandOverFault = null;
        if (fault == StoreFault.NEVER_SENT) {
            throw fault.exception();
        }
        if (fault == StoreFault.LANDS_LATE) {
            lateWrite.set(() -> real.handOver(name, owner, version, newOwner, session));
            throw fault.exception();
        }
        AcquireAttempt attempt = real.handOver(name, owner, version, newOwner, session);
        if (fault == StoreFault.ANSWER_LOST) {
            throw fault.exception();
        }
        return attempt;
    }

    @Override
    public void joinQueue(String name, String manager) {
        queueCalls.incrementAndGet();
        real.joinQueue(name, manager);
    }

    @Override
    public void leaveQueue(String name, String manager) {
        queueCalls.incrementAndGet();
        real.leaveQueue(name, manager);
    }

    @Override
    public boolean reenter(String name, String owner, long version) {
        StoreFault fault = nextReentryFault;
        nextReentryFault = null;
        long hang = nextReentryHangMillis;
        nextReentryHangMillis = 0;
        if (hang > 0) {
            try {
                Thread.sleep(hang);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new LockStoreException("re-entry interrupted", interrupted);
            }
        }
        if (fault == StoreFault.NEVER_SENT) {
            throw fault.exception();
        }
        boolean moved = real.reenter(name, owner, version);
        if (fault == StoreFault.ANSWER_LOST) {
            throw fault.exception();
        }
        return moved;
    }

    @Override
    public boolean release(String name, String owner, long version, int remainingHolds) {
        try {
            releaseGate.await();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new LockStoreException("release interrupted", interrupted);
        }
        if (releasesFail) {
            throw new LockStoreException("MongoDB unreachable (scripted)", new RuntimeException());
        }
        StoreFault fault = nextReleaseFault;
        nextReleaseFault = null;
        if (fault == StoreFault.NEVER_SENT) {
            throw fault.exception();
        }
        boolean released = real.release(name, owner, version, remainingHolds);
        landLateWrite();
        if (fault == StoreFault.ANSWER_LOST) {
            throw fault.exception();
        }
        return released;
    }

    @Override
    public SessionRenewal renewSession(String session) {
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
        return real.renewSession(session);
    }
}
