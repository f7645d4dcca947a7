package io.github.mongolock.core;

/**
 * Holds other than locks that live under a manager's sessions (permits of semaphores, read-write holds), as the renewer sees
 * them: a session with any of them is not idle, a session that ended loses them, and a renewal that checks the
 * session's locks checks them too.
 */
interface SessionHolders {

    SessionHolders NONE = new SessionHolders() {
        @Override
        public boolean anyUnder(Session session) {
            return false;
        }

        @Override
        public void sessionLost(Session session, String reason) {
        }

        @Override
        public void check(Session session) {
        }
    };

    /** Both {@code first}'s and {@code second}'s holds (a manager's semaphores and read-write locks). */
    static SessionHolders both(SessionHolders first, SessionHolders second) {
        return new SessionHolders() {
            @Override
            public boolean anyUnder(Session session) {
                return first.anyUnder(session) || second.anyUnder(session);
            }

            @Override
            public void sessionLost(Session session, String reason) {
                first.sessionLost(session, reason);
                second.sessionLost(session, reason);
            }

            @Override
            public void check(Session session) {
                first.check(session);
                second.check(session);
            }
        };
    }

    /** Whether anything is held under {@code session}. */
    boolean anyUnder(Session session);

    /** {@code session} ended or lapsed: everything held under it is lost, for {@code reason}. */
    void sessionLost(Session session, String reason);

    /**
     * Reads what the store holds under {@code session}: reports what is held here and not found there, and gives back
     * what is found there and known to no acquisition here.
     *
     * @throws io.github.mongolock.LockException when the store could not be read (the renewer checks again soon)
     */
    void check(Session session);
}
