package io.github.mongolock.memory;

import io.github.mongolock.core.LockStore;
import io.github.mongolock.core.ReadWriteStoreContract;

/** The read-write store contract on the test kit's in-memory store. */
class InMemoryReadWriteStoreContractTest extends ReadWriteStoreContract {

    @Override
    protected LockStore newStore() {
        return new InMemoryLockStore();
    }
}
