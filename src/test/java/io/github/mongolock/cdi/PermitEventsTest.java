package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockEvent;
import io.github.mongolock.Locked;
import io.github.mongolock.PermitEvent;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A semaphore's grants and releases arrive as CDI events of type {@link PermitEvent}, never as {@link LockEvent}s. */
@ExtendWith(MongoBackend.class)
class PermitEventsTest {

    @ApplicationScoped
    public static class Recorder {
        final List<PermitEvent> permits = new CopyOnWriteArrayList<>();
        final List<LockEvent> locks = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        void on(@Observes PermitEvent event) {
            permits.add(event);
            threads.add(Thread.currentThread().getName());
        }

        void on(@Observes LockEvent event) {
            locks.add(event);
        }

        public List<PermitEvent> permits() {
            return List.copyOf(permits);
        }

        public List<LockEvent> locks() {
            return List.copyOf(locks);
        }

        public List<String> threads() {
            return List.copyOf(threads);
        }
    }

    @ApplicationScoped
    public static class Exports {
        @Locked(value = "export", permits = 2)
        public void export() {
        }
    }

    private WeldContainer node;

    @BeforeEach
    void start(TestMongo mongo) {
        node = WeldNodes.start("permit-events", WeldNodes.settings(mongo, mongo.freshDatabase()), Recorder.class, Exports.class);
    }

    @AfterEach
    void stop() {
        node.close();
    }

    @Test
    void grantAndReleaseOfAPermitAreCdiEventsOnTheCallingThread() {
        node.select(Exports.class).get().export();
        Recorder recorder = node.select(Recorder.class).get();
        List<PermitEvent> events = recorder.permits();
        assertEquals(List.of(PermitEvent.Kind.ACQUIRED, PermitEvent.Kind.RELEASED), events.stream().map(PermitEvent::kind).toList());
        PermitEvent acquired = events.get(0);
        assertEquals("export", acquired.name());
        assertEquals(1, acquired.permits());
        assertTrue(acquired.fencingToken() > 0);
        assertTrue(acquired.owner().contains(":p"), acquired.owner());
        assertEquals(acquired, new PermitEvent(PermitEvent.Kind.ACQUIRED, "export", events.get(1).fencingToken(),
                events.get(1).owner(), events.get(1).permits()), "the release names the same grant");
        assertEquals(List.of(Thread.currentThread().getName(), Thread.currentThread().getName()), recorder.threads(),
                "delivered synchronously on the calling thread");
        assertEquals(List.of(), recorder.locks(), "no lock event for a semaphore");
    }
}
