package io.github.mongolock.cdi;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.set;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockEvent;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockManager;
import io.github.mongolock.Locked;
import io.github.mongolock.testing.ForeignTakeover;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Acquisitions, releases and lost leases arrive as CDI events of type {@link LockEvent}. */
@ExtendWith(MongoBackend.class)
class EventsTest {

    /** What an application writes to observe locks. */
    @ApplicationScoped
    public static class Recorder {
        final List<LockEvent> events = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        void on(@Observes LockEvent event) {
            events.add(event);
            threads.add(Thread.currentThread().getName());
            if (event.name().equals("observer-fails")) {
                throw new IllegalStateException("a broken observer");
            }
        }

        public List<LockEvent> events() {
            return List.copyOf(events);
        }

        /** The recording list itself, readable after the container is gone. */
        public List<LockEvent> live() {
            return events;
        }

        public List<String> threads() {
            return List.copyOf(threads);
        }

        public void clear() {
            events.clear();
            threads.clear();
        }
    }

    @ApplicationScoped
    public static class Worker {
        @Inject
        Worker self;

        @Locked("evented")
        public void work() {
        }

        @Locked("evented")
        public void nested() {
            self.work();
        }

        @Locked("observer-fails")
        public String observedBadly() {
            return "ran";
        }

        @Locked(value = "short-async", leaseTime = "PT0.3S")
        public CompletableFuture<String> later(CompletableFuture<String> work) {
            return work;
        }

        @Locked(value = "short-lease", leaseTime = "PT0.3S")
        public void holdUntil(CountDownLatch started, CountDownLatch finish) throws InterruptedException {
            started.countDown();
            assertTrue(finish.await(30, TimeUnit.SECONDS));
        }
    }

    private TestMongo mongo;
    private String database;
    private WeldContainer node;
    private Recorder recorder;
    private Worker worker;

    @BeforeEach
    void start(TestMongo mongo) {
        this.mongo = mongo;
        database = mongo.freshDatabase();
        node = WeldNodes.start("events", WeldNodes.settings(mongo, database), Recorder.class, Worker.class);
        recorder = node.select(Recorder.class).get();
        worker = node.select(Worker.class).get();
    }

    @AfterEach
    void stop() {
        node.close();
    }

    @Test
    void acquiredAndReleasedCarryNameTokenOwnerAndHoldCount() {
        worker.work();
        List<LockEvent> events = recorder.events();
        assertEquals(List.of(LockEvent.Kind.ACQUIRED, LockEvent.Kind.RELEASED), events.stream().map(LockEvent::kind).toList());
        LockEvent acquired = events.get(0);
        assertEquals("evented", acquired.name());
        assertEquals(1, acquired.holdCount());
        assertTrue(acquired.owner().endsWith(":" + Thread.currentThread().getId()), acquired.owner());
        assertEquals(acquired.fencingToken(), events.get(1).fencingToken());
        assertEquals(acquired.owner(), events.get(1).owner());
        assertEquals(0, events.get(1).holdCount());
        assertEquals(List.of(Thread.currentThread().getName(), Thread.currentThread().getName()), recorder.threads(),
                "delivered synchronously on the calling thread");
    }

    @Test
    void reEntryIsVisibleInTheHoldCounts() {
        worker.nested();
        List<LockEvent> events = recorder.events();
        assertEquals(List.of("ACQUIRED/1", "ACQUIRED/2", "RELEASED/1", "RELEASED/0"),
                events.stream().map(event -> event.kind() + "/" + event.holdCount()).toList());
        assertEquals(1, events.stream().map(LockEvent::fencingToken).distinct().count());
    }

    @Test
    void aFailingObserverDoesNotAffectTheLock() {
        assertEquals("ran", worker.observedBadly());
        assertEquals(2, recorder.events().size());
        assertTrue(node.select(LockManager.class).get().inspect("observer-fails").isEmpty());
    }

    @Test
    void aLostLeaseIsObservedOnTheRenewalThreadAndFailsTheCall() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<?> call = caller.submit(() -> {
                worker.holdUntil(started, finish);
                return null;
            });
            assertTrue(started.await(10, TimeUnit.SECONDS));
            LockEvent acquired = recorder.events().get(0);
            // Another party overwrites the lock document, as a holder that took over an expired lease would.
            ForeignTakeover.take(mongo.collection(database, "locks"), "short-lease", "someone-else");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (recorder.events().stream().noneMatch(event -> event.kind() == LockEvent.Kind.LEASE_LOST)
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            List<LockEvent> events = recorder.events();
            int lostAt = events.stream().map(LockEvent::kind).toList().indexOf(LockEvent.Kind.LEASE_LOST);
            assertTrue(lostAt > 0, "no LEASE_LOST event: " + events);
            LockEvent lost = events.get(lostAt);
            assertEquals(new LockEvent(LockEvent.Kind.LEASE_LOST, "short-lease", acquired.fencingToken(), acquired.owner(), 0), lost);
            assertTrue(recorder.threads().get(lostAt).startsWith("mongolock-notices"), recorder.threads().get(lostAt));
            finish.countDown();
            ExecutionException failed = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
            LockLostException lostException = assertInstanceOf(LockLostException.class, failed.getCause());
            assertEquals("short-lease", lostException.lockName());
            assertEquals(acquired.fencingToken(), lostException.fencingToken());
        } finally {
            finish.countDown();
            caller.shutdownNow();
        }
    }

    @Test
    void aStageWhoseLeaseWasLostCompletesWithLockLostException() throws Exception {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> returned = worker.later(work);
        ForeignTakeover.take(mongo.collection(database, "locks"), "short-async", "someone-else");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (recorder.events().stream().noneMatch(event -> event.kind() == LockEvent.Kind.LEASE_LOST)
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        work.complete("done, but unprotected");
        ExecutionException failed = assertThrows(ExecutionException.class, () -> returned.get(10, TimeUnit.SECONDS));
        assertEquals("short-async", assertInstanceOf(LockLostException.class, failed.getCause()).lockName());
    }
}
