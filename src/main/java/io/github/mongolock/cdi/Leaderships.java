package io.github.mongolock.cdi;

import io.github.mongolock.LockConfigurationException;
import java.util.List;
import java.util.OptionalLong;

/**
 * The leader elections this application joined at startup ({@code mongolock.leadership.names}), as an
 * injectable {@code @ApplicationScoped} bean registered by {@link MongoLockExtension}:
 *
 * <pre>{@code
 * @Inject Leaderships leaderships;
 *
 * OptionalLong term = leaderships.term("billing-leader");
 * if (term.isPresent()) {
 *     billing.runAsLeader(term.getAsLong());     // fence the leader's writes with the term
 * }
 * }</pre>
 *
 * <p>Each answer is evaluated at the call, without I/O ({@link io.github.mongolock.Leadership#isLeader()}).
 * Changes are also fired as the CDI events {@link io.github.mongolock.LeadershipGranted} and
 * {@link io.github.mongolock.LeadershipRevoked}. Thread-safe.
 */
public interface Leaderships {

    /** The elections joined, in the order configured; empty when {@code mongolock.leadership.names} is unset. */
    List<String> names();

    /**
     * Whether this instance is leader of {@code election} now.
     *
     * @throws LockConfigurationException when {@code election} is not one of {@link #names()}
     */
    boolean isLeader(String election);

    /**
     * The current term of {@code election} while this instance is its leader; empty when it is not.
     *
     * @throws LockConfigurationException when {@code election} is not one of {@link #names()}
     */
    OptionalLong term(String election);

    /**
     * Gives up the leadership of {@code election}, if held (see {@link io.github.mongolock.Leadership#stepDown()}:
     * this instance stays a candidate and sits two poll intervals out).
     *
     * @return whether this instance was leader and stepped down
     * @throws LockConfigurationException when {@code election} is not one of {@link #names()}
     */
    boolean stepDown(String election);
}
