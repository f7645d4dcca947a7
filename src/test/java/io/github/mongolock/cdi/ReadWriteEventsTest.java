package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockEvent;
import io.github.mongolock.LockManager;
import io.github.mongolock.Locked;
import io.github.mongolock.PermitEvent;
import io.github.mongolock.ReadWriteEvent;
import io.github.mongolock.ReadWriteHold;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A read-write lock's grants and releases arrive as CDI events of type {@link ReadWriteEvent}, one per grant. */
@ExtendWith(MongoBackend.class)
class ReadWriteEventsTest {

    @ApplicationScoped
    public static class Recorder {
        final List<ReadWriteEvent> readWrite = new CopyOnWriteArrayList<>();
        final List<Object> others = new CopyOnWriteArrayList<>();

        void on(@Observes ReadWriteEvent event) {
            readWrite.add(event);
        }

        void on(@Observes PermitEvent event) {
            others.add(event);
        }

        void on(@Observes LockEvent event) {
            others.add(event);
        }

        public List<ReadWriteEvent> readWrite() {
            return List.copyOf(readWrite);
        }

        public List<Object> others() {
            return List.copyOf(others);
        }
    }

    @ApplicationScoped
    public static class Inner {
        @Locked(value = "catalog", access = Locked.Access.READ)
        public void nested() {
        }
    }

    @ApplicationScoped
    public static class Catalog {
        @Inject
        Inner inner;

        @Locked(value = "catalog", access = Locked.Access.READ)
        public void read() {
            inner.nested();
        }

        @Locked(value = "catalog", access = Locked.Access.WRITE)
        public void write() {
        }
    }

    private WeldContainer node;

    @BeforeEach
    void start(TestMongo mongo) {
        node = WeldNodes.start("rw-events", WeldNodes.settings(mongo, mongo.freshDatabase()), Recorder.class, Catalog.class,
                Inner.class);
    }

    @AfterEach
    void stop() {
        node.close();
    }

    @Test
    void aGrantAndItsReleaseAreOneEventEachWithTheMode() {
        Catalog catalog = node.select(Catalog.class).get();
        catalog.read();
        catalog.write();
        Recorder recorder = node.select(Recorder.class).get();
        List<ReadWriteEvent> events = recorder.readWrite();
        assertEquals(List.of(ReadWriteEvent.Kind.ACQUIRED, ReadWriteEvent.Kind.RELEASED, ReadWriteEvent.Kind.ACQUIRED,
                ReadWriteEvent.Kind.RELEASED), events.stream().map(ReadWriteEvent::kind).toList(), "the nested read is no grant");
        assertEquals(List.of(ReadWriteHold.Mode.READ, ReadWriteHold.Mode.READ, ReadWriteHold.Mode.WRITE,
                ReadWriteHold.Mode.WRITE), events.stream().map(ReadWriteEvent::mode).toList());
        assertEquals("catalog", events.get(0).name());
        assertEquals(events.get(0).owner(), events.get(1).owner());
        assertTrue(events.get(2).fencingToken() > events.get(0).fencingToken());
        assertEquals(List.of(), recorder.others(), "no lock or permit event for a read-write lock");
        try (ReadWriteHold hold = node.select(LockManager.class).get().readWriteLock("plain").tryWrite().orElseThrow()) {
            assertEquals(ReadWriteEvent.Kind.ACQUIRED, recorder.readWrite().get(4).kind());
            assertEquals(hold.owner(), recorder.readWrite().get(4).owner());
        }
        assertEquals(6, recorder.readWrite().size());
    }
}
