package io.github.mongolock.core;

/**
 * The answer to one {@link LockStore#renewSession}: whether the session was still live (its lease restarted),
 * and the store's check counter, which moves when something outside the manager changed one of the session's
 * locks (an operator's forced release): the manager then checks its locks ({@link LockStore#checkSession}).
 */
public record SessionRenewal(boolean live, long checks) {

    /** The session had ended: a waiter found it unrenewed for a whole lease, or its manager or an operator ended it. */
    public static final SessionRenewal ENDED = new SessionRenewal(false, 0);
}
