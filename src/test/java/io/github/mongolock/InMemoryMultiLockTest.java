package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.memory.InMemoryLocks;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MultiLockContract} on the in-memory test kit, and what its controls do to one part of a set: the lease
 * loss of one part, and the order in which parts are taken and released, seen through the events.
 */
class InMemoryMultiLockTest extends MultiLockContract {

    private final InMemoryLocks locks = new InMemoryLocks();

    @AfterEach
    void closeAll() {
        locks.close();
    }

    @Override
    LockManager node(String instanceId) {
        return locks.newManager(instanceId);
    }

    @Test
    void theLossOfOnePartIsReportedOnceAndCloseStillReleasesTheOthers() {
        LockManager node = node("node-1");
        LockSet set = node.acquireAll(List.of("a", "b", "c"));
        AtomicInteger told = new AtomicInteger();
        set.onLeaseLost(told::incrementAndGet);
        locks.loseLease("b");
        assertFalse(set.isHeld());
        assertTrue(set.sessions().get(0).isHeld() && set.sessions().get(2).isHeld(), "the other parts stay held");
        assertEquals(1, told.get());
        locks.loseLease("c");
        assertEquals(1, told.get(), "a second lost part does not run the action again");
        LockLostException lost = assertThrows(LockLostException.class, set::close);
        assertEquals(1, lost.getSuppressed().length, "c's loss is the first failure (reverse order), b's is suppressed");
        assertTrue(node.inspect("a").isEmpty(), "a is released although b and c failed before it");
        set.close();
        AtomicInteger late = new AtomicInteger();
        try (LockSet next = node.acquireAll(List.of("a", "b"))) {
            locks.loseLease("a");
            next.onLeaseLost(late::incrementAndGet);
            assertEquals(1, late.get(), "registered after the loss: run at once");
            assertThrows(LockLostException.class, next::close);
        }
    }

    @Test
    void partsAreTakenInCanonicalOrderAndReleasedInReverse() {
        List<LockEvent> events = new CopyOnWriteArrayList<>();
        LockManager node = locks.manager().instanceId("node-1").listener(events::add).build();
        node.acquireAll(List.of("c", "a", "b")).close();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (events.size() < 6 && System.nanoTime() < deadline) {
            sleep(10);
        }
        assertEquals(List.of("ACQUIRED a", "ACQUIRED b", "ACQUIRED c", "RELEASED c", "RELEASED b", "RELEASED a"),
                events.stream().map(event -> event.kind() + " " + event.name()).toList());
    }
}
