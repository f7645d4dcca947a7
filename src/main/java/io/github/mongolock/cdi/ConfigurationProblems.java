package io.github.mongolock.cdi;

import io.github.mongolock.LockConfigurationException;
import java.lang.System.Logger.Level;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reports the configuration problems found while the application deploys or starts, all at once: logged
 * together, each once (a class-level override is checked for each method of its class, but is one problem).
 */
final class ConfigurationProblems {

    private static final System.Logger LOG = System.getLogger(ConfigurationProblems.class.getName());

    private ConfigurationProblems() {
    }

    /** The distinct problems, logged as one error; empty, and nothing logged, when there are none. */
    static Set<String> logged(List<String> problems) {
        Set<String> distinct = new LinkedHashSet<>(problems);
        if (!distinct.isEmpty()) {
            LOG.log(Level.ERROR, "mongolock found " + distinct.size() + " configuration problem(s):\n" + String.join("\n", distinct));
        }
        return distinct;
    }

    /**
     * Throws one exception listing every problem, if there are any.
     *
     * @throws LockConfigurationException whose message is the problems, one per line
     */
    static void throwIfAny(List<String> problems) {
        Set<String> distinct = logged(problems);
        if (!distinct.isEmpty()) {
            throw new LockConfigurationException(String.join("\n", distinct));
        }
    }
}
