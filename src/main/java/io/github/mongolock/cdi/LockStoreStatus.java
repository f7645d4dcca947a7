package io.github.mongolock.cdi;

/**
 * The state of the application's lock store, as the readiness check reports it; a second type of
 * the {@code LockManager} bean, so it can be injected where the status should be shown. Answers
 * without I/O. Thread-safe.
 */
public interface LockStoreStatus {

    /** Whether the MongoDB driver currently sees a server it can write locks to (its monitor's view). */
    boolean storeAvailable();

    /** This application instance's {@code mongolock.instance-id} (configured or generated). */
    String instanceId();

    /** What the push wake-up is doing: IDLE, PUSHING, RECONNECTING, UNAVAILABLE or CLOSED. */
    String pushWakeUp();
}
