package io.github.mongolock.core;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.LockUpgradeException;
import io.github.mongolock.OnLeaseLost;
import io.github.mongolock.ReadWriteHold;
import io.github.mongolock.ReadWriteLock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leased read-write locks of one manager (spec/RWLOCK-DESIGN.md): the grants, waits, queue of writers and take-backs
 * are a {@link PermitCoordinator}'s over a {@link ReadWriteStore} (a read is 1 permit, a write all
 * {@link ReadWriteStore#WHOLE}); this class adds what is the caller's: re-entry of each mode, counted here without a
 * store write, the downgrade of a write to a read, and the refused upgrade. A caller is the thread that acquired, as for
 * locks, while its hold is open. Thread-safe.
 */
final class ReadWriteLocks {

    private final PermitCoordinator coordinator;
    private final Duration defaultWait;
    /** Per lock name and thread, the caller's open access. Entries exist only while something is held. */
    private final ConcurrentHashMap<Key, Access> held = new ConcurrentHashMap<>();

    ReadWriteLocks(PermitCoordinator coordinator, Duration defaultWait) {
        this.coordinator = coordinator;
        this.defaultWait = defaultWait;
    }

    ReadWriteLock lock(String name) {
        LockArguments.checkName(name);
        return new NamedLock(name);
    }

    private record Key(String name, Thread caller) {
    }

    /** A caller's open holds of one lock: the grant behind each mode and how many acquisitions of it are open. */
    private static final class Access {
        HeldPermits read;
        int reads;
        HeldPermits write;
        int writes;

        boolean isEmpty() {
            return read == null && write == null;
        }
    }

    /** @return the hold, or empty when the wait ended with the lock busy */
    private Optional<ReadWriteHold> acquire(String name, ReadWriteHold.Mode mode, LockOptions options) {
        Objects.requireNonNull(options, "options");
        if (!options.holdAtLeast().isZero()) {
            throw new LockConfigurationException("holdAtLeast " + options.holdAtLeast() + " was given for read-write lock "
                    + LockArguments.quote(name) + ": a minimum hold applies to locks only. Leave holdAtLeast unset.");
        }
        Key key = new Key(name, Thread.currentThread());
        Access access = held.computeIfAbsent(key, absent -> new Access());
        synchronized (access) {
            if (mode == ReadWriteHold.Mode.READ && access.read != null) {
                return Optional.of(reenter(key, access, mode, access.read));
            }
            if (mode == ReadWriteHold.Mode.WRITE && access.write != null) {
                return Optional.of(reenter(key, access, mode, access.write));
            }
            if (mode == ReadWriteHold.Mode.WRITE && access.read != null) {
                throw new LockUpgradeException("Read-write lock " + LockArguments.quote(name) + ": this caller holds read"
                        + " access and asked for write. A read cannot be upgraded (two callers upgrading at once would wait"
                        + " for each other for ever): close the read hold(s) and then acquire write, or acquire write first"
                        + " and read inside it.");
            }
        }
        Optional<HeldPermits> granted;
        try {
            granted = mode == ReadWriteHold.Mode.READ && access.write != null ? downgrade(name, access.write, options)
                    : coordinator.acquire(name, ReadWriteStore.WHOLE, mode == ReadWriteHold.Mode.READ ? 1 : ReadWriteStore.WHOLE,
                    options).map(HeldPermits.class::cast);
        } catch (RuntimeException failed) {
            forgetIfEmpty(key, access);
            throw failed;
        }
        if (granted.isEmpty()) {
            forgetIfEmpty(key, access);
            return Optional.empty();
        }
        synchronized (access) {
            if (mode == ReadWriteHold.Mode.READ) {
                access.read = granted.get();
                access.reads = 1;
            } else {
                access.write = granted.get();
                access.writes = 1;
            }
        }
        held.putIfAbsent(key, access);
        return Optional.of(new Hold(key, access, mode, granted.get()));
    }

    /** Caller holds {@code access}'s monitor. */
    private ReadWriteHold reenter(Key key, Access access, ReadWriteHold.Mode mode, HeldPermits grant) {
        if (grant.isLost()) {
            throw new LockLostException(key.name(), grant.fencingToken, "The " + mode.name().toLowerCase() + " access to"
                    + " read-write lock " + LockArguments.quote(key.name()) + " (token " + grant.fencingToken + ") was lost"
                    + " while this caller held it: close the outer hold, and acquire again.");
        }
        if (mode == ReadWriteHold.Mode.READ) {
            access.reads++;
        } else {
            access.writes++;
        }
        return new Hold(key, access, mode, grant);
    }

    /** The caller holds write and asks read: a read entry beside its write entry, at once. */
    private Optional<HeldPermits> downgrade(String name, HeldPermits write, LockOptions options) {
        if (write.isLost()) {
            throw new LockLostException(name, write.fencingToken, "The write access to read-write lock "
                    + LockArguments.quote(name) + " (token " + write.fencingToken + ") was lost, so it cannot be downgraded"
                    + " to read: close it, and acquire read again.");
        }
        Optional<HeldPermits> read = coordinator.downgrade(write);
        if (read.isEmpty()) {
            throw new LockLostException(name, write.fencingToken, "The write access to read-write lock "
                    + LockArguments.quote(name) + " (token " + write.fencingToken + ") was taken back before the downgrade"
                    + " to read: close it, and acquire read again.");
        }
        if (options.onLeaseLost() == OnLeaseLost.INTERRUPT) {
            Thread holder = Thread.currentThread();
            read.get().onLeaseLost(holder::interrupt);
        }
        return read;
    }

    private void forgetIfEmpty(Key key, Access access) {
        synchronized (access) {
            if (access.isEmpty()) {
                held.remove(key, access);
            }
        }
    }

    /** One acquisition's view: closing it counts down its mode, and the last one gives the grant back. */
    private final class Hold implements ReadWriteHold {
        private final Key key;
        private final Access access;
        private final Mode mode;
        private final HeldPermits grant;
        private boolean closed;

        Hold(Key key, Access access, Mode mode, HeldPermits grant) {
            this.key = key;
            this.access = access;
            this.mode = mode;
            this.grant = grant;
        }

        @Override
        public String name() {
            return key.name();
        }

        @Override
        public Mode mode() {
            return mode;
        }

        @Override
        public long fencingToken() {
            return grant.fencingToken;
        }

        @Override
        public String owner() {
            return grant.owner;
        }

        @Override
        public int holdCount() {
            synchronized (access) {
                if (closed) {
                    return 0;
                }
                return mode == Mode.READ ? access.reads : access.writes;
            }
        }

        @Override
        public boolean isHeld() {
            synchronized (access) {
                if (closed) {
                    return false;
                }
            }
            return grant.isHeld();
        }

        /**
         * On the caller's shared grant, but only while this hold is open: a nested hold's action does not run for a loss
         * after that hold was closed (as a lock's never runs after its close), though the grant lives on in an outer one.
         */
        @Override
        public ReadWriteHold onLeaseLost(Runnable action) {
            Objects.requireNonNull(action, "action");
            grant.onLeaseLost(() -> {
                if (isOpen()) {
                    action.run();
                }
            });
            return this;
        }

        private boolean isOpen() {
            synchronized (access) {
                return !closed;
            }
        }

        @Override
        public void close() {
            boolean last;
            synchronized (access) {
                if (closed) {
                    return;
                }
                closed = true;
                if (mode == Mode.READ) {
                    last = --access.reads == 0;
                    if (last) {
                        access.read = null;
                    }
                } else {
                    last = --access.writes == 0;
                    if (last) {
                        access.write = null;
                    }
                }
            }
            if (!last) {
                return;
            }
            try {
                grant.close();
            } finally {
                forgetIfEmpty(key, access);
            }
        }

        @Override
        public String toString() {
            return "ReadWriteHold[name=" + key.name() + ", mode=" + mode + ", token=" + grant.fencingToken + ", owner="
                    + grant.owner + "]";
        }
    }

    /** One read-write lock of this manager, as {@link #lock} returns it. Immutable. */
    private final class NamedLock implements ReadWriteLock {
        private final String name;

        NamedLock(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public ReadWriteHold read() {
            return read(LockOptions.defaults());
        }

        @Override
        public ReadWriteHold read(LockOptions options) {
            return acquire(name, ReadWriteHold.Mode.READ, options).orElseThrow(() -> timeout(ReadWriteHold.Mode.READ, options));
        }

        @Override
        public Optional<ReadWriteHold> tryRead() {
            return tryRead(LockOptions.defaults().waitTime(Duration.ZERO));
        }

        @Override
        public Optional<ReadWriteHold> tryRead(LockOptions options) {
            return acquire(name, ReadWriteHold.Mode.READ, options);
        }

        @Override
        public ReadWriteHold write() {
            return write(LockOptions.defaults());
        }

        @Override
        public ReadWriteHold write(LockOptions options) {
            return acquire(name, ReadWriteHold.Mode.WRITE, options).orElseThrow(() -> timeout(ReadWriteHold.Mode.WRITE, options));
        }

        @Override
        public Optional<ReadWriteHold> tryWrite() {
            return tryWrite(LockOptions.defaults().waitTime(Duration.ZERO));
        }

        @Override
        public Optional<ReadWriteHold> tryWrite(LockOptions options) {
            return acquire(name, ReadWriteHold.Mode.WRITE, options);
        }

        private LockTimeoutException timeout(ReadWriteHold.Mode mode, LockOptions options) {
            Duration wait = options.waitTime().orElse(defaultWait);
            String busy = mode == ReadWriteHold.Mode.READ ? "a writer held it or waited for it" : "readers or another writer held it";
            return new LockTimeoutException(name, "No " + mode.name().toLowerCase() + " access to read-write lock "
                    + LockArguments.quote(name) + " within " + wait + ": " + busy + " for the whole wait. Raise the wait"
                    + " time, or keep the holds shorter.");
        }

        @Override
        public String toString() {
            return "ReadWriteLock[name=" + name + "]";
        }
    }
}
