package io.github.mongolock.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockException;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockUpgradeException;
import io.github.mongolock.ReadWriteHold;
import io.github.mongolock.ReadWriteLock;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The test kit's read-write locks keep MongoDB's rules, and its control takes every hold back (issue 32, part 3). */
class InMemoryReadWriteLockTest {

    @Test
    void readersShareWritersExcludeAndTheRulesOfEachModeHold() {
        try (InMemoryLocks locks = new InMemoryLocks()) {
            ReadWriteLock a = locks.newManager("a").readWriteLock("catalog");
            ReadWriteLock b = locks.newManager("b").readWriteLock("catalog");
            ReadWriteLock c = locks.newManager("c").readWriteLock("catalog");
            try (ReadWriteHold readA = a.read(); ReadWriteHold readB = b.read()) {
                assertTrue(readA.isHeld() && readB.isHeld(), "two readers at once");
                assertTrue(c.tryWrite().isEmpty(), "no writer beside readers");
                assertThrows(LockUpgradeException.class, a::write);
            }
            try (ReadWriteHold write = a.write(); ReadWriteHold read = a.read()) {
                assertEquals(ReadWriteHold.Mode.READ, read.mode(), "the writer downgraded");
                assertTrue(c.tryRead().isEmpty(), "another reader waits while the write is held");
            }
        }
    }

    @Test
    void aNestedHoldsLossActionDoesNotRunOnceThatHoldIsClosed() {
        try (InMemoryLocks locks = new InMemoryLocks()) {
            ReadWriteLock catalog = locks.newManager("a").readWriteLock("catalog");
            AtomicInteger outerActions = new AtomicInteger();
            AtomicInteger innerActions = new AtomicInteger();
            ReadWriteHold outer = catalog.read().onLeaseLost(outerActions::incrementAndGet);
            try (ReadWriteHold inner = catalog.read()) {
                assertEquals(outer.fencingToken(), inner.fencingToken(), "one grant for the caller's nested reads");
                inner.onLeaseLost(innerActions::incrementAndGet);
            }
            assertEquals(1, locks.takeBackReadWrite("catalog"));
            assertEquals(1, outerActions.get(), "the open hold's action ran");
            assertEquals(0, innerActions.get(), "the closed nested hold's action did not: it was closed before the loss");
            assertThrows(LockLostException.class, outer::close);
        }
    }

    @Test
    void takeBackReadWriteFreesTheLockAndTellsEveryHolderBeforeItReturns() {
        try (InMemoryLocks locks = new InMemoryLocks()) {
            ReadWriteLock a = locks.newManager("a").readWriteLock("catalog");
            ReadWriteLock b = locks.newManager("b").readWriteLock("catalog");
            AtomicInteger lossActions = new AtomicInteger();
            ReadWriteHold write = a.write().onLeaseLost(lossActions::incrementAndGet);
            assertTrue(b.tryRead().isEmpty());
            assertEquals(1, locks.takeBackReadWrite("catalog"));
            assertEquals(1, lossActions.get(), "the holder's loss action ran before the control returned");
            assertFalse(write.isHeld());
            try (ReadWriteHold next = b.write()) {
                assertTrue(next.fencingToken() > write.fencingToken(), "the next grant's token is greater");
            }
            assertThrows(LockLostException.class, write::close);
            LockException none = assertThrows(LockException.class, () -> locks.takeBackReadWrite("catalog"));
            assertTrue(none.getMessage().contains("is not held"), none.getMessage());
        }
    }
}
