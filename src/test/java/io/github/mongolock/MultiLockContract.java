package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Multi-locks ({@link LockManager#acquireAll}) as docs/multi-locks.md describes them, on every store: a subclass
 * supplies managers ("nodes") sharing one store. Two nodes stand for two machines.
 */
abstract class MultiLockContract {

    /** A new manager on the shared store, closed by the subclass after the test. */
    abstract LockManager node(String instanceId);

    private static LockOptions waiting(Duration wait) {
        return LockOptions.defaults().waitTime(wait);
    }

    @Test
    void takesTheDistinctNamesInCanonicalOrderWithOneTokenEach() {
        LockManager node = node("node-1");
        try (LockSet set = node.acquireAll(List.of("b", "a", "c", "a", "b"))) {
            assertEquals(List.of("a", "b", "c"), set.names());
            assertEquals(List.of("a", "b", "c"), set.sessions().stream().map(LockSession::name).toList());
            assertEquals(List.of("a", "b", "c"), List.copyOf(set.fencingTokens().keySet()));
            assertTrue(set.isHeld());
            for (LockSession part : set.sessions()) {
                LockInfo stored = node.inspect(part.name()).orElseThrow();
                assertEquals(part.owner(), stored.owner());
                assertEquals(part.fencingToken(), stored.fencingToken());
                assertEquals(part.fencingToken(), set.fencingToken(part.name()));
                assertEquals(1, part.holdCount());
            }
            assertThrows(UnsupportedOperationException.class, () -> set.fencingTokens().put("d", 1L));
            LockConfigurationException notPart = assertThrows(LockConfigurationException.class, () -> set.fencingToken("d"));
            assertTrue(notPart.getMessage().contains("\"d\"") && notPart.getMessage().contains("[a, b, c]"), notPart.getMessage());
        }
        for (String name : List.of("a", "b", "c")) {
            assertTrue(node.inspect(name).isEmpty(), name + " must be free once the set is closed");
        }
    }

    @Test
    void eachFreshGrantOfAPartHasALargerTokenThanThatNamesLastOne() {
        LockManager node = node("node-1");
        long a;
        try (LockSession single = node.acquire("a")) {
            a = single.fencingToken();
        }
        try (LockSet set = node.acquireAll(List.of("a", "b"))) {
            assertTrue(set.fencingToken("a") > a);
        }
    }

    @Test
    void aBusyPartTimesOutAndNothingOfTheSetStaysHeld() {
        LockManager node1 = node("node-1");
        LockManager node2 = node("node-2");
        try (LockSession held = node2.acquire("b")) {
            LockTimeoutException timeout = assertThrows(LockTimeoutException.class,
                    () -> node1.acquireAll(List.of("c", "a", "b"), waiting(Duration.ofMillis(300))));
            assertEquals("b", timeout.lockName());
            assertTrue(timeout.getMessage().contains("Nothing of the set is held"), timeout.getMessage());
            assertTrue(timeout.getMessage().contains("[a, b, c]"), timeout.getMessage());
            assertTrue(timeout.getCause() instanceof LockTimeoutException, "the part's own timeout is the cause");
            assertTrue(node1.inspect("a").isEmpty(), "a, taken before b, must have been released");
            assertTrue(node1.inspect("c").isEmpty(), "c, after b, must never have been taken");
            assertEquals(held.owner(), node1.inspect("b").orElseThrow().owner(), "the other holder is untouched");

            assertTrue(node1.tryAcquireAll(List.of("a", "b")).isEmpty());
            assertTrue(node1.tryAcquireAll(List.of("a", "b"), waiting(Duration.ofMillis(100))).isEmpty());
            assertTrue(node1.inspect("a").isEmpty(), "an empty tryAcquireAll holds nothing");
        }
        try (LockSet set = node1.tryAcquireAll(List.of("a", "b")).orElseThrow()) {
            assertEquals(List.of("a", "b"), set.names());
        }
    }

    @Test
    void theWaitTimeIsTheWholeSets() throws Exception {
        LockManager node1 = node("node-1");
        LockManager node2 = node("node-2");
        LockSession a = node2.acquire("a");
        LockSession b = node2.acquire("b");
        CompletableFuture<Void> releaseA = CompletableFuture.runAsync(() -> {
            sleep(1000);
            a.close();
        });
        long start = System.nanoTime();
        assertThrows(LockTimeoutException.class, () -> node1.acquireAll(List.of("a", "b"), waiting(Duration.ofSeconds(2))));
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        releaseA.get(10, TimeUnit.SECONDS);
        System.out.println("MultiLock: a set of two with a PT2S wait, the first part free after 1 s, timed out after "
                + elapsedMillis + " ms");
        // Two waits (one per part) would have taken 1 s + 2 s.
        assertTrue(elapsedMillis >= 1900 && elapsedMillis < 2800, elapsedMillis + " ms");
        assertTrue(node1.inspect("a").isEmpty(), "a was taken, then released when b timed out");
        b.close();
    }

    @Test
    void anInterruptWhileWaitingForALaterPartReleasesTheEarlierOnes() throws Exception {
        LockManager node1 = node("node-1");
        LockManager node2 = node("node-2");
        try (LockSession held = node2.acquire("b")) {
            AtomicReference<Thread> waiter = new AtomicReference<>();
            CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
                waiter.set(Thread.currentThread());
                try {
                    node1.acquireAll(List.of("a", "b"), waiting(Duration.ofSeconds(20))).close();
                    return null;
                } catch (RuntimeException failure) {
                    return failure;
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (node1.inspect("a").isEmpty() && System.nanoTime() < deadline) {
                sleep(10);
            }
            assertTrue(node1.inspect("a").isPresent(), "a should be taken while b is waited for");
            waiter.get().interrupt();
            Throwable failure = outcome.get(10, TimeUnit.SECONDS);
            assertTrue(failure instanceof LockInterruptedException, String.valueOf(failure));
            assertTrue(node1.inspect("a").isEmpty(), "a must be released when the wait for b fails");
            assertEquals(held.owner(), node1.inspect("b").orElseThrow().owner());
        }
    }

    @Test
    void aNameTheCallerIsInsideReentersLikeASingleAcquire() {
        LockManager node = node("node-1");
        try (LockSession outer = node.acquire("a")) {
            try (LockSet set = node.acquireAll(List.of("a", "b"))) {
                LockSession a = set.sessions().get(0);
                assertEquals(2, a.holdCount());
                assertEquals(outer.fencingToken(), set.fencingToken("a"));
                assertEquals(outer.owner(), a.owner());
                assertEquals(1, set.sessions().get(1).holdCount());
            }
            assertEquals(outer.owner(), node.inspect("a").orElseThrow().owner(), "the outer hold of a stays");
            assertTrue(node.inspect("b").isEmpty());
        }
        assertTrue(node.inspect("a").isEmpty());
    }

    @Test
    void badInputIsRefusedBeforeAnythingIsWritten() {
        LockManager node = node("node-1");
        assertThrows(LockConfigurationException.class, () -> node.acquireAll(List.of()));
        assertThrows(LockConfigurationException.class, () -> node.acquireAll(null));
        assertThrows(LockConfigurationException.class, () -> node.tryAcquireAll(List.of()));
        LockConfigurationException bad = assertThrows(LockConfigurationException.class,
                () -> node.acquireAll(Arrays.asList("a", "b\0c")));
        assertTrue(bad.getMessage().contains("NUL"), bad.getMessage());
        assertThrows(LockConfigurationException.class, () -> node.acquireAll(Arrays.asList("a", null)));
        assertThrows(LockConfigurationException.class, () -> node.acquireAll(List.of("a", "")));
        assertThrows(LockConfigurationException.class,
                () -> node.acquireAll(List.of("a", "b"), LockOptions.defaults().waitTime(Duration.ofSeconds(-1))));
        assertThrows(LockConfigurationException.class,
                () -> node.acquireAll(List.of("a", "b"), LockOptions.defaults().leaseTime(Duration.ofMillis(1))));
        assertThrows(LockConfigurationException.class,
                () -> node.acquireAll(List.of("a", "b"), LockOptions.defaults().holdAtLeast(Duration.ofSeconds(-1))));
        assertTrue(node.inspect("a").isEmpty(), "nothing may be written for a refused set");
    }

    @Test
    void aDetachedSetIsNotReenteredUntilAttached() throws Exception {
        LockManager node = node("node-1");
        try (LockSet set = node.acquireAll(List.of("a", "b"))) {
            set.detach();
            assertTrue(node.tryAcquire("a").isEmpty(), "detached: this thread is another caller now");
            assertTrue(node.tryAcquireAll(List.of("b", "c")).isEmpty());
            assertTrue(node.inspect("c").isEmpty(), "nothing of {b, c} is held: b was busy");
            CompletableFuture.runAsync(() -> {
                set.attach();
                try (LockSet nested = node.acquireAll(List.of("a", "b"), waiting(Duration.ZERO))) {
                    assertEquals(2, nested.sessions().get(0).holdCount(), "attached on this thread: re-entered");
                }
            }).get(10, TimeUnit.SECONDS);
        }
        assertTrue(node.inspect("a").isEmpty() && node.inspect("b").isEmpty());
    }

    @Test
    void closeReleasesEveryPartAndIsIdempotent() {
        LockManager node = node("node-1");
        LockSet set = node.acquireAll(List.of("a", "b"));
        set.close();
        set.close();
        assertFalse(set.isHeld());
        assertTrue(node.inspect("a").isEmpty() && node.inspect("b").isEmpty());
    }

    /**
     * Two nodes take {x, y} and {y, x} over and over, each incrementing two unsynchronised counters under the set.
     * Taken in the order given (no canonical order), each soon holds the one the other waits for and both time
     * out; in canonical order no wait ever runs out and the counters come out exact.
     */
    @Test
    void oppositeOrdersNeverDeadlock() {
        LockManager node1 = node("node-1");
        LockManager node2 = node("node-2");
        int rounds = 40;
        int[] counters = new int[2];
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        long start = System.nanoTime();
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (List<Object> worker : List.of(List.<Object>of(node1, List.of("x", "y")), List.<Object>of(node2, List.of("y", "x")))) {
                LockManager node = (LockManager) worker.get(0);
                @SuppressWarnings("unchecked")
                List<String> names = (List<String>) worker.get(1);
                workers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < rounds; i++) {
                        try (LockSet set = node.acquireAll(names, waiting(Duration.ofSeconds(2)))) {
                            int x = counters[0];
                            int y = counters[1];
                            Thread.yield();
                            counters[0] = x + 1;
                            counters[1] = y + 1;
                        } catch (RuntimeException failure) {
                            failures.add(failure);
                        }
                    }
                }));
            }
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get();
        });
        System.out.println("MultiLock: " + 2 * rounds + " sets {x, y} / {y, x} on two nodes in "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms, " + failures.size() + " failures");
        assertEquals(0, failures.size(), () -> failures.size() + " sets failed, e.g. " + failures.get(0));
        assertEquals(2 * rounds, counters[0]);
        assertEquals(2 * rounds, counters[1]);
    }

    @Test
    void tokensAreShownByName() {
        LockManager node = node("node-1");
        try (LockSet set = node.acquireAll(List.of("b", "a"))) {
            Map<String, Long> tokens = set.fencingTokens();
            assertEquals(set.sessions().get(0).fencingToken(), tokens.get("a"));
            assertEquals(set.sessions().get(1).fencingToken(), tokens.get("b"));
            assertNotEquals(Optional.empty(), Optional.of(set.toString()));
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(interrupted);
        }
    }
}
