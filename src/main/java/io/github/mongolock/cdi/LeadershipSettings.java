package io.github.mongolock.cdi;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LeadershipOptions;
import io.github.mongolock.core.LockArguments;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The leader elections the application joins at startup, read once from MicroProfile Config when it
 * deploys; every problem is collected, each naming its key and value. Immutable.
 *
 * <pre>
 * mongolock.leadership.names=billing-leader,report-leader     the elections (lock names), comma-separated
 * mongolock.leadership.lease-time=PT10S                        every election's lease (default PT10S)
 * mongolock.leadership.poll-interval=PT2S                      how often a candidate polls (default: lease / 5)
 * mongolock.leadership.billing-leader.lease-time=PT5S          one election's own values, over the two above
 * mongolock.leadership.billing-leader.poll-interval=PT1S
 * </pre>
 *
 * @param elections each election's options, in the order listed
 */
record LeadershipSettings(Map<String, LeadershipOptions> elections) {

    static final String PREFIX = "mongolock.leadership.";
    static final String NAMES = PREFIX + "names";
    static final String LEASE_TIME = "lease-time";
    static final String POLL_INTERVAL = "poll-interval";

    LeadershipSettings {
        elections = Collections.unmodifiableMap(new LinkedHashMap<>(elections));
    }

    static LeadershipSettings read(ConfigReader config, List<String> problems) {
        List<String> names = names(config, problems);
        Optional<Duration> lease = config.lease(PREFIX + LEASE_TIME, problems);
        Optional<String> poll = config.text(PREFIX + POLL_INTERVAL, problems);
        Map<String, LeadershipOptions> elections = new LinkedHashMap<>();
        for (String name : names) {
            String own = PREFIX + name + ".";
            Optional<Duration> ownLease = config.lease(own + LEASE_TIME, problems);
            Optional<String> ownPoll = config.text(own + POLL_INTERVAL, problems);
            String leaseKey = ownLease.isPresent() ? own + LEASE_TIME : PREFIX + LEASE_TIME;
            LeadershipOptions options = LeadershipOptions.defaults()
                    .leaseTime(ownLease.or(() -> lease).orElse(LeadershipOptions.DEFAULT_LEASE_TIME));
            String pollKey = ownPoll.isPresent() ? own + POLL_INTERVAL : PREFIX + POLL_INTERVAL;
            Optional<String> pollValue = ownPoll.or(() -> poll);
            if (pollValue.isPresent()) {
                options = pollInterval(options, pollKey, pollValue.get(), leaseKey, problems).orElse(options);
            }
            elections.put(name, options);
        }
        unknownElections(config, names, problems);
        return new LeadershipSettings(elections);
    }

    private static List<String> names(ConfigReader config, List<String> problems) {
        Optional<String> list = config.text(NAMES, problems);
        List<String> names = new ArrayList<>();
        if (list.isEmpty()) {
            return names;
        }
        for (String entry : list.get().split(",", -1)) {
            String name = entry.strip();
            if (name.isEmpty()) {
                problems.add(CdiMessages.badElectionName(NAMES, list.get(), "it has an empty entry."));
            } else if (names.contains(name)) {
                problems.add(CdiMessages.badElectionName(NAMES, list.get(), LockArguments.quote(name) + " is listed twice."));
            } else {
                try {
                    names.add(LockArguments.checkName(name));
                } catch (LockConfigurationException invalid) {
                    problems.add(CdiMessages.badElectionName(NAMES, list.get(), invalid.getMessage()));
                }
            }
        }
        return names;
    }

    /** The options with the poll interval from {@code key}, if it is a duration the options accept and at most the lease. */
    private static Optional<LeadershipOptions> pollInterval(LeadershipOptions options, String key, String value,
                                                            String leaseKey, List<String> problems) {
        return ConfigReader.duration(key, value, problems).flatMap(poll -> {
            try {
                LeadershipOptions polled = options.pollInterval(poll);
                if (poll.compareTo(options.leaseTime()) > 0) {
                    problems.add(CdiMessages.badPollInterval(key, value, "it is longer than the lease, " + leaseKey + " = "
                            + options.leaseTime() + ": a candidate must poll at least once per lease. Use at most the"
                            + " lease, e.g. a fifth of it (the default when unset)."));
                    return Optional.empty();
                }
                return Optional.of(polled);
            } catch (LockConfigurationException tooShort) {
                problems.add(CdiMessages.badPollInterval(key, value, "a candidate polls at most every "
                        + LeadershipOptions.MIN_POLL_INTERVAL + " (ISO-8601, e.g. PT2S; unset: a fifth of the lease)."));
                return Optional.empty();
            }
        });
    }

    /** Per-election keys whose election is not listed: most likely a typo in the name, which would go unnoticed. */
    private static void unknownElections(ConfigReader config, List<String> names, List<String> problems) {
        for (String key : config.keys(problems)) {
            if (!key.startsWith(PREFIX)) {
                continue;
            }
            for (String member : List.of(LEASE_TIME, POLL_INTERVAL)) {
                String suffix = "." + member;
                if (key.endsWith(suffix) && key.length() > PREFIX.length() + suffix.length()) {
                    String election = key.substring(PREFIX.length(), key.length() - suffix.length());
                    if (!names.contains(election)) {
                        problems.add(CdiMessages.unknownElection(key, election, NAMES, names));
                    }
                }
            }
        }
    }
}
