package io.github.mongolock;

/**
 * A lock name, duration or setting breaks a rule. The message quotes the value, names where it
 * came from (argument, builder method or configuration key) and states what is allowed.
 */
public class LockConfigurationException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockConfigurationException(String message) {
        super(message);
    }

    public LockConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
