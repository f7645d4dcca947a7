package io.github.mongolock.torture;

import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.mongolock.LockLostException;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.PermitHold;
import io.github.mongolock.core.LockCoordinator;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.MonotonicClock;
import io.github.mongolock.core.PermitAttempt;
import io.github.mongolock.core.PermitHolders;
import io.github.mongolock.core.PermitStore;
import io.github.mongolock.testing.ForwardingPermitStore;
import io.github.mongolock.core.SessionRenewal;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.mongo.MongoLockStore;
import io.github.mongolock.testing.ForwardingLockStore;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the PERMITS_PAUSE scenario met once (short run of 2026-11-29, w3.0, token 5 of sem-1): a holder
 * {@code SIGSTOP}ped inside {@code close()}, its release on the wire, for 2 x lease; on {@code SIGCONT} the
 * driver's timeout had passed and the release failed, while its session's lease had run out unconfirmed and a
 * waiter had ended the session and taken its permit. The holder was told {@link LockStoreException} ("MongoDB
 * could not be told"), not {@link LockLostException}. A lock's holder in the same spot is told it lost the lock
 * ({@code OwnedLocks.lastReleaseFailed}: the lease is checked again after the failed release, and the loss
 * reported with the failure attached); a permit's close checks its lease only before the release
 * ({@code HeldPermits.close}) and rethrows the store's failure ({@code PermitCoordinator.release}).
 *
 * <p>Here the freeze is played without signals: renewals are held back (as the frozen renewer's are) and the
 * release waits 1.5 leases, then fails as the driver's timeout does. The lock's case passes; <b>the permit's case
 * fails on the branch as it is</b> (a production divergence, reported, not fixed here: src/main is others' work in
 * progress). Until fixed, the torture's pause rule for permits (see {@link PermitsChecker}) takes that
 * {@code LockStoreException} from a holder caught inside {@code close()} as its being told, as the lock rule does
 * where the network fails.
 */
@ExtendWith(MongoBackend.class)
class PausedInsideCloseTest {

    private static final Duration LEASE = Duration.ofSeconds(1);

    private final TestMongo mongo;
    private final FrozenInsideRelease store;
    private final LockCoordinator manager;

    PausedInsideCloseTest(TestMongo mongo) {
        this.mongo = mongo;
        this.store = new FrozenInsideRelease(new MongoLockStore(mongo.client().getDatabase(mongo.freshDatabase()), "locks",
                MongoLockStore.DEFAULT_TIMEOUT, LockMetrics.NONE));
        this.manager = new LockCoordinator(store, "paused:" + System.nanoTime(), LEASE, Duration.ofSeconds(5),
                MonotonicClock.system(), List.of());
    }

    @AfterEach
    void close() {
        store.thaw();
        manager.close();
    }

    @Test
    void aLockHolderFrozenInsideCloseIsToldItLostTheLock() {
        LockSession held = manager.acquire("job");
        store.freezeNow();
        assertThrows(LockLostException.class, held::close);
    }

    @Test
    void aPermitHolderFrozenInsideCloseIsToldItLostThePermits() {
        PermitHold held = manager.permits("export", 2).acquire();
        store.freezeNow();
        assertThrows(LockLostException.class, held::close,
                "the lease ran out unconfirmed during the release, as a lock's close reports; got the store's failure");
    }

    /** Renewals wait while frozen; a release made while frozen takes 1.5 leases, then fails as the driver's timeout. */
    private static final class FrozenInsideRelease extends ForwardingLockStore {

        private volatile CountDownLatch renewals = new CountDownLatch(0);

        FrozenInsideRelease(LockStore real) {
            super(real);
        }

        void freezeNow() {
            renewals = new CountDownLatch(1);
        }

        void thaw() {
            renewals.countDown();
        }

        boolean frozen() {
            return renewals.getCount() > 0;
        }

        @Override
        public SessionRenewal renewSession(String session) {
            try {
                renewals.await();
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            return super.renewSession(session);
        }

        @Override
        public boolean release(String name, String owner, long version, int remainingHolds) {
            if (frozen()) {
                sleepThenFail();
            }
            return super.release(name, owner, version, remainingHolds);
        }

        void sleepThenFail() {
            try {
                TimeUnit.MILLISECONDS.sleep(LEASE.toMillis() * 3 / 2);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            throw new LockStoreException("the operation timed out (frozen inside the release)", new RuntimeException(), true);
        }

        @Override
        public Optional<PermitStore> permitStore() {
            return Optional.of(new ForwardingPermitStore(real.permitStore().orElseThrow()) {
                @Override
                public boolean release(String name, String owner, int n) {
                    if (frozen()) {
                        sleepThenFail();
                    }
                    return super.release(name, owner, n);
                }
            });
        }
    }
}
