package io.github.mongolock.cdi;

import io.github.mongolock.LockEvent;
import io.github.mongolock.LockListener;
import io.github.mongolock.PermitEvent;
import io.github.mongolock.ReadWriteEvent;
import jakarta.enterprise.event.Event;
import java.util.Objects;

/**
 * Fires each {@link LockEvent} and {@link PermitEvent} of the application's lock manager as a synchronous CDI
 * event, on the thread that reports it: the acquiring or releasing thread, or the notice thread for a lost lease.
 * Muted before the manager closes at shutdown, when observers may be gone already. Thread-safe.
 */
final class LockEventBridge implements LockListener {

    private final Event<LockEvent> events;
    private final Event<PermitEvent> permitEvents;
    private final Event<ReadWriteEvent> readWriteEvents;
    private volatile boolean muted;

    LockEventBridge(Event<LockEvent> events, Event<PermitEvent> permitEvents, Event<ReadWriteEvent> readWriteEvents) {
        this.events = Objects.requireNonNull(events, "events");
        this.permitEvents = Objects.requireNonNull(permitEvents, "permitEvents");
        this.readWriteEvents = Objects.requireNonNull(readWriteEvents, "readWriteEvents");
    }

    @Override
    public void onEvent(LockEvent event) {
        if (!muted) {
            events.fire(event); // an observer's exception is logged by the core and never affects the lock
        }
    }

    @Override
    public void onPermitEvent(PermitEvent event) {
        if (!muted) {
            permitEvents.fire(event);
        }
    }

    @Override
    public void onReadWriteEvent(ReadWriteEvent event) {
        if (!muted) {
            readWriteEvents.fire(event);
        }
    }

    void mute() {
        muted = true;
    }
}
