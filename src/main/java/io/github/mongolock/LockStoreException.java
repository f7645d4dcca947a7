package io.github.mongolock;

/** MongoDB could not be reached, timed out, or refused an operation. The cause is the driver's exception. */
public class LockStoreException extends LockException {
    private static final long serialVersionUID = 1L;

    private final boolean outcomeUnknown;

    public LockStoreException(String message, Throwable cause) {
        this(message, cause, true);
    }

    /**
     * @param outcomeUnknown false when the request certainly never reached MongoDB (no server could be
     *                       selected or connected to), true when it may have been applied
     */
    public LockStoreException(String message, Throwable cause, boolean outcomeUnknown) {
        super(message, cause);
        this.outcomeUnknown = outcomeUnknown;
    }

    /** Whether the failed operation may still have been applied by MongoDB (e.g. the answer was lost). */
    public boolean outcomeUnknown() {
        return outcomeUnknown;
    }
}
