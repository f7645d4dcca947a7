package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Leased read-write locks through the public API, several managers as on several machines (issue 32, part 3). */
@ExtendWith(MongoBackend.class)
class ReadWriteLockTest {

    private final TestMongo mongo;

    ReadWriteLockTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    private MongoLockManager manager(MongoClient client, String database, String id, Duration lease) {
        return MongoLockManager.builder().client(client).database(database).instanceId(id).leaseTime(lease).build();
    }

    private static LockOptions waiting(Duration wait) {
        return LockOptions.defaults().waitTime(wait);
    }

    @Test
    void manyReadersOrOneWriterAcrossManagersAndEveryWriteTokenIsNew() throws Exception {
        String database = mongo.freshDatabase();
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger mostReaders = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger writes = new AtomicInteger();
        List<Long> writeTokens = java.util.Collections.synchronizedList(new ArrayList<>());
        List<MongoLockManager> managers = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(9);
        try {
            for (int m = 0; m < 3; m++) {
                managers.add(manager(mongo.client(), database, "node-" + m, Duration.ofSeconds(5)));
            }
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 9; t++) {
                ReadWriteLock catalog = managers.get(t % 3).readWriteLock("catalog");
                boolean writer = t % 3 == 0;
                done.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < 12; i++) {
                        if (writer) {
                            try (ReadWriteHold hold = catalog.write(waiting(Duration.ofSeconds(30)))) {
                                if (writers.incrementAndGet() != 1 || readers.get() != 0) {
                                    violations.incrementAndGet();
                                }
                                writeTokens.add(hold.fencingToken());
                                Thread.sleep(2);
                                writers.decrementAndGet();
                                writes.incrementAndGet();
                            }
                        } else {
                            try (ReadWriteHold hold = catalog.read(waiting(Duration.ofSeconds(30)))) {
                                int now = readers.incrementAndGet();
                                mostReaders.accumulateAndGet(now, Math::max);
                                if (writers.get() != 0) {
                                    violations.incrementAndGet();
                                }
                                Thread.sleep(3);
                                readers.decrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : done) {
                future.get(120, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
            managers.forEach(MongoLockManager::close);
        }
        assertEquals(0, violations.get(), "never a writer beside a reader or another writer");
        assertEquals(36, writes.get());
        assertTrue(mostReaders.get() >= 2, "readers shared the lock: at most " + mostReaders.get() + " at once");
        for (int i = 1; i < writeTokens.size(); i++) {
            assertTrue(writeTokens.get(i) > writeTokens.get(i - 1), "write tokens grow in grant order: " + writeTokens);
        }
    }

    @Test
    void aWaitingWriterGoesBeforeReadersThatArriveAfterIt() throws Exception {
        String database = mongo.freshDatabase();
        try (MongoLockManager first = manager(mongo.client(), database, "first", Duration.ofSeconds(5));
             MongoLockManager writing = manager(mongo.client(), database, "writing", Duration.ofSeconds(5));
             MongoLockManager late = manager(mongo.client(), database, "late", Duration.ofSeconds(5))) {
            ReadWriteHold reading = first.readWriteLock("catalog").read();
            CompletableFuture<ReadWriteHold> writer = CompletableFuture.supplyAsync(
                    () -> writing.readWriteLock("catalog").write(waiting(Duration.ofSeconds(20))));
            Thread.sleep(300); // the writer found a reader, queued
            Optional<ReadWriteHold> lateReader = late.readWriteLock("catalog").tryRead(waiting(Duration.ofSeconds(2)));
            assertTrue(lateReader.isEmpty(), "a reader arriving while a writer waits waits behind it");
            assertFalse(writer.isDone(), "the writer waits for the first reader");
            reading.close();
            try (ReadWriteHold write = writer.get(10, TimeUnit.SECONDS)) {
                assertEquals(ReadWriteHold.Mode.WRITE, write.mode());
                assertTrue(write.fencingToken() > reading.fencingToken());
                assertTrue(late.readWriteLock("catalog").tryRead().isEmpty(), "no reader beside the writer");
            }
            try (ReadWriteHold read = late.readWriteLock("catalog").read(waiting(Duration.ofSeconds(5)))) {
                assertTrue(read.isHeld());
            }
        }
    }

    @Test
    void eachModeReEntersWithoutWaitingAndTheLastCloseGivesItBack() {
        String database = mongo.freshDatabase();
        try (MongoLockManager node = manager(mongo.client(), database, "node", Duration.ofSeconds(5));
             MongoLockManager other = manager(mongo.client(), database, "other", Duration.ofSeconds(5))) {
            ReadWriteLock catalog = node.readWriteLock("catalog");
            try (ReadWriteHold outer = catalog.write()) {
                try (ReadWriteHold inner = catalog.write(waiting(Duration.ZERO))) {
                    assertEquals(2, inner.holdCount());
                    assertEquals(outer.fencingToken(), inner.fencingToken(), "a re-entry shares the grant");
                }
                assertEquals(1, outer.holdCount());
                assertTrue(other.readWriteLock("catalog").tryRead().isEmpty(), "still written after the inner close");
            }
            assertTrue(other.readWriteLock("catalog").tryWrite().map(hold -> {
                hold.close();
                return true;
            }).orElse(false), "free after the outer close");
            try (ReadWriteHold outer = catalog.read(); ReadWriteHold inner = catalog.read()) {
                assertEquals(2, inner.holdCount());
                assertTrue(outer.isHeld() && inner.isHeld());
            }
        }
    }

    @Test
    void aWriterMayDowngradeToReadAndAReaderMayNotUpgrade() {
        String database = mongo.freshDatabase();
        try (MongoLockManager node = manager(mongo.client(), database, "node", Duration.ofSeconds(5));
             MongoLockManager other = manager(mongo.client(), database, "other", Duration.ofSeconds(5))) {
            ReadWriteLock catalog = node.readWriteLock("catalog");
            ReadWriteHold write = catalog.write();
            ReadWriteHold read = catalog.read(waiting(Duration.ZERO)); // the downgrade: granted at once
            assertEquals(ReadWriteHold.Mode.READ, read.mode());
            assertTrue(read.fencingToken() > write.fencingToken());
            write.close();
            assertTrue(read.isHeld(), "the read outlives the write it came from");
            try (ReadWriteHold otherRead = other.readWriteLock("catalog").read(waiting(Duration.ofSeconds(5)))) {
                assertTrue(otherRead.isHeld(), "another reader beside the downgraded one");
            }
            assertTrue(other.readWriteLock("catalog").tryWrite().isEmpty(), "no writer beside the downgraded reader");
            LockUpgradeException refused = assertThrows(LockUpgradeException.class, catalog::write);
            assertTrue(refused.getMessage().contains("\"catalog\"") && refused.getMessage().contains("cannot be upgraded"),
                    refused.getMessage());
            assertTrue(read.isHeld(), "the refused upgrade changed nothing");
            read.close();
            try (ReadWriteHold now = catalog.write(waiting(Duration.ZERO))) {
                assertTrue(now.isHeld(), "with the read closed, write is granted");
            }
        }
    }

    @Test
    void aCrashedWritersLockIsGrantedAfterItsLeaseAndItLearnsItLostIt() throws Exception {
        String database = mongo.freshDatabase();
        Duration lease = Duration.ofSeconds(1);
        MongoClient doomed = MongoClients.create(mongo.uri());
        CountDownLatch lost = new CountDownLatch(1);
        try (MongoLockManager crashing = manager(doomed, database, "crashing", lease);
             MongoLockManager waiter = manager(mongo.client(), database, "waiter", lease)) {
            ReadWriteHold held = crashing.readWriteLock("catalog").write();
            held.onLeaseLost(lost::countDown);
            doomed.close();
            long start = System.nanoTime();
            try (ReadWriteHold taken = waiter.readWriteLock("catalog").write(waiting(Duration.ofSeconds(10)))) {
                long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(taken.fencingToken() > held.fencingToken());
                assertTrue(waitedMs >= 900, "not before the holder's lease could have ended: " + waitedMs + " ms");
                assertTrue(lost.await(5, TimeUnit.SECONDS), "the crashed writer's loss action ran");
                assertFalse(held.isHeld());
                assertThrows(LockLostException.class, held::close);
            }
        }
    }

    @Test
    void closingTheManagerGivesBackOpenAccessAndReportsItReleasedOnce() {
        String database = mongo.freshDatabase();
        List<ReadWriteEvent> events = new CopyOnWriteArrayList<>();
        LockListener listener = new LockListener() {
            @Override
            public void onEvent(LockEvent event) {
            }

            @Override
            public void onReadWriteEvent(ReadWriteEvent event) {
                events.add(event);
            }
        };
        MongoLockManager closing = MongoLockManager.builder().client(mongo.client()).database(database).instanceId("closing")
                .leaseTime(Duration.ofSeconds(5)).listener(listener).build();
        ReadWriteHold read = closing.readWriteLock("catalog").read();
        ReadWriteHold write = closing.readWriteLock("prices").write();
        closing.close();
        assertEquals(List.of(ReadWriteEvent.Kind.ACQUIRED, ReadWriteEvent.Kind.ACQUIRED, ReadWriteEvent.Kind.RELEASED,
                ReadWriteEvent.Kind.RELEASED), events.stream().map(ReadWriteEvent::kind).toList(), events.toString());
        assertEquals(Set.of(read.fencingToken() + "@catalog", write.fencingToken() + "@prices"),
                events.stream().skip(2).map(event -> event.fencingToken() + "@" + event.name())
                        .collect(Collectors.toSet()));
        read.close(); // the manager gave it back already: nothing more is reported
        write.close();
        assertEquals(4, events.size(), events.toString());
        try (MongoLockManager other = manager(mongo.client(), database, "other", Duration.ofSeconds(5))) {
            assertTrue(other.readWriteLock("prices").tryWrite().isPresent(), "given back on close");
        }
    }

    @Test
    void badInputIsRefusedNamingTheValue() {
        String database = mongo.freshDatabase();
        try (MongoLockManager node = manager(mongo.client(), database, "node", Duration.ofSeconds(5))) {
            assertThrows(LockConfigurationException.class, () -> node.readWriteLock(""));
            LockConfigurationException hold = assertThrows(LockConfigurationException.class, () -> node.readWriteLock("catalog")
                    .write(LockOptions.defaults().holdAtLeast(Duration.ofMinutes(1))));
            assertTrue(hold.getMessage().contains("holdAtLeast PT1M") && hold.getMessage().contains("read-write lock"),
                    hold.getMessage());
            assertTrue(node.readWriteLock("catalog").tryWrite().map(held -> {
                held.close();
                return true;
            }).orElse(false), "nothing was left held by the refused call");
        }
    }
}
