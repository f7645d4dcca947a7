package io.github.mongolock.memory;

import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.PermitStoreContract;

/** The semaphore contract on the test kit's in-memory store: every manager shares the one store. */
class InMemoryPermitStoreContractTest extends PermitStoreContract {

    @Override
    protected LockStore newStore() {
        return new InMemoryLockStore();
    }

    @Override
    protected LockStore sameStoreAs(LockStore store) {
        return store;
    }
}
