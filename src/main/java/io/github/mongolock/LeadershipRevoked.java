package io.github.mongolock;

import java.util.Objects;

/**
 * CDI event: this application instance is no longer leader of the election {@code name} for the term
 * {@code term}. Fired synchronously, without qualifier, on the lock manager's {@code mongolock-notices}
 * thread when the lease was lost (at the lease's end, before another instance can be elected), on the
 * thread that stepped down, or on the thread stopping the application ({@link RevocationReason#LEFT}:
 * fired while the application's beans still exist, before the election lock is released).
 *
 * @param name   the election (and its lock's) name
 * @param term   the term that ended, as in the {@link LeadershipGranted} that began it
 * @param reason why it ended
 */
public record LeadershipRevoked(String name, long term, RevocationReason reason) {

    public LeadershipRevoked {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(reason, "reason");
    }
}
