package io.github.mongolock.torture;

import io.github.mongolock.core.LeaseClaim;
import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.PermitStore;
import io.github.mongolock.core.ReadWriteStore;
import io.github.mongolock.core.SessionCheck;
import io.github.mongolock.core.SessionRenewal;
import io.github.mongolock.testing.ForwardingLockStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * A manager's store that can "die" as a frozen process does, without signals: once {@link #die()} is called, every
 * session call (renewal, end, check) and every call on its semaphores and read-write locks hangs until
 * {@link #revive()} (the test's end). Its locks' own calls pass, so what it held stays held and unrenewed.
 */
final class DyingStore extends ForwardingLockStore {

    private volatile CountDownLatch alive = new CountDownLatch(0);

    DyingStore(LockStore real) {
        super(real);
    }

    void die() {
        alive = new CountDownLatch(1);
    }

    void revive() {
        alive.countDown();
    }

    private void hangWhileDead() {
        try {
            alive.await();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public SessionRenewal renewSession(String session) {
        hangWhileDead();
        return super.renewSession(session);
    }

    @Override
    public void endSession(String session) {
        hangWhileDead();
        super.endSession(session);
    }

    @Override
    public SessionCheck checkSession(String session, Collection<LeaseClaim> claims) {
        hangWhileDead();
        return super.checkSession(session, claims);
    }

    @Override
    public Optional<PermitStore> permitStore() {
        return real.permitStore().map(store -> hanging(PermitStore.class, store));
    }

    @Override
    public Optional<ReadWriteStore> readWriteStore() {
        return real.readWriteStore().map(store -> hanging(ReadWriteStore.class, store));
    }

    /** {@code store} whose every call hangs while this store is dead. */
    private <T> T hanging(Class<T> type, T store) {
        return type.cast(Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            hangWhileDead();
            try {
                return method.invoke(store, args);
            } catch (InvocationTargetException thrown) {
                throw thrown.getCause();
            }
        }));
    }
}
