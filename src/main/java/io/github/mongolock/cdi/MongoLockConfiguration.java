package io.github.mongolock.cdi;

import java.util.List;

/**
 * Everything mongolock reads from MicroProfile Config: the {@code LockManager}'s settings, the leader elections
 * to join, and the {@code @Locked} operations, resolved against that configuration as their bean classes are
 * registered. Read when the application deploys (portable extension) or starts (build-compatible extension);
 * problems are collected, never thrown. Built on one thread, read by any afterwards.
 *
 * @param settings   the {@code mongolock.*} keys of the manager
 * @param leadership the {@code mongolock.leadership.*} keys
 * @param operations the {@code @Locked} methods, with their {@code .../Locked/...} overrides
 */
record MongoLockConfiguration(LockManagerSettings settings, LeadershipSettings leadership, LockedOperations operations) {

    /** Reads every key; each problem, naming its key and value, is appended to {@code problems}. */
    static MongoLockConfiguration read(ConfigReader config, List<String> problems) {
        return new MongoLockConfiguration(LockManagerSettings.read(config, problems), LeadershipSettings.read(config, problems),
                new LockedOperations(config));
    }
}
