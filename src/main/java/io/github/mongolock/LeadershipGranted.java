package io.github.mongolock;

import java.util.Objects;

/**
 * CDI event: this application instance became leader of the election {@code name} for the term
 * {@code term} (the election lock's fencing token). Fired synchronously, without qualifier, for the
 * elections configured in {@code mongolock.leadership.names}, on the elections' scheduler thread
 * (no request context is active there). For one election, a {@link LeadershipRevoked} with the same
 * term always comes before the next {@code LeadershipGranted}.
 *
 * @param name the election (and its lock's) name
 * @param term the term: grows with every election of that name
 */
public record LeadershipGranted(String name, long term) {

    public LeadershipGranted {
        Objects.requireNonNull(name, "name");
    }
}
