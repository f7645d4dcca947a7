package io.github.mongolock.memory;

import io.github.mongolock.LockEvent;
import io.github.mongolock.LockListener;
import io.github.mongolock.PermitEvent;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last lease losses one in-memory manager reported to its listeners, by owner, so that a control can
 * return only once the holder it took a lock from has been told (its loss actions run and its listeners
 * called, in that order, before this listener, which is the manager's last). Keeps the latest
 * {@value #KEPT} owners: a control waits for a loss it caused a moment ago. Thread-safe.
 */
final class LeaseLossLog implements LockListener {

    private static final int KEPT = 1024;

    /** Guarded by {@code this}. */
    private final Map<String, Boolean> lostOwners = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > KEPT;
        }
    };

    @Override
    public synchronized void onEvent(LockEvent event) {
        if (event.kind() == LockEvent.Kind.LEASE_LOST) {
            lostOwners.put(event.owner(), Boolean.TRUE);
            notifyAll();
        }
    }

    @Override
    public synchronized void onPermitEvent(PermitEvent event) {
        if (event.kind() == PermitEvent.Kind.LEASE_LOST) {
            lostOwners.put(event.owner(), Boolean.TRUE);
            notifyAll();
        }
    }

    /** @return whether {@code owner}'s loss was reported within {@code timeoutMillis} */
    synchronized boolean awaitLoss(String owner, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        while (!lostOwners.containsKey(owner)) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }
}
