package io.github.mongolock.cdi;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.core.LockArguments;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import org.eclipse.microprofile.config.Config;

/**
 * Reads values from MicroProfile Config as text and parses them itself, so that every problem is
 * reported with the key and the raw value, whatever converters the Config implementation has.
 * Problems are appended to the given list instead of thrown, so a deployment reports all at once.
 * Not thread-safe; used while the application deploys.
 */
final class ConfigReader {

    private final Config config;
    /** Whether a value that cannot be read is a problem, or is left to be read later (see {@link #whileBuilding}). */
    private final boolean unreadableIsProblem;

    ConfigReader(Config config) {
        this(config, true);
    }

    private ConfigReader(Config config, boolean unreadableIsProblem) {
        this.config = Objects.requireNonNull(config, "config");
        this.unreadableIsProblem = unreadableIsProblem;
    }

    /**
     * A reader of the configuration as an application's build sees it (Quarkus): a value that cannot be read
     * yet, such as {@code ${MONGO_URL}} from an environment variable only set where the application runs, is
     * taken as unset; the application reads and checks it again when it starts.
     */
    static ConfigReader whileBuilding(Config config) {
        return new ConfigReader(config, false);
    }

    /** The value of {@code key}; empty when unset or empty (MicroProfile Config treats both alike). */
    Optional<String> text(String key, List<String> problems) {
        try {
            return config.getOptionalValue(key, String.class).map(String::strip).filter(value -> !value.isEmpty());
        } catch (IllegalArgumentException | NoSuchElementException unreadable) {
            if (unreadableIsProblem) {
                problems.add(CdiMessages.unreadable(key, unreadable.getMessage()));
            }
            return Optional.empty();
        }
    }

    /** Every key the configuration can list (environment variables only under their own spelling). */
    List<String> keys(List<String> problems) {
        List<String> keys = new ArrayList<>();
        try {
            config.getPropertyNames().forEach(keys::add);
        } catch (RuntimeException unreadable) {
            problems.add(CdiMessages.unreadable("(the list of keys)", unreadable.getMessage()));
        }
        return keys;
    }

    Optional<Duration> lease(String key, List<String> problems) {
        return text(key, problems).flatMap(value -> lease(key, value, problems));
    }

    Optional<Duration> waitTime(String key, List<String> problems) {
        return text(key, problems).flatMap(value -> waitTime(key, value, problems));
    }

    Optional<Duration> holdAtLeast(String key, List<String> problems) {
        return text(key, problems).flatMap(value -> holdAtLeast(key, value, problems));
    }

    /** {@code true} or {@code false}, in any case; anything else is a problem naming the key. */
    Optional<Boolean> bool(String key, List<String> problems) {
        return text(key, problems).flatMap(value -> switch (value.toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> Optional.of(true);
            case "false" -> Optional.of(false);
            default -> {
                problems.add(CdiMessages.badSetting(key, value, "write true or false."));
                yield Optional.empty();
            }
        });
    }

    Optional<Integer> integer(String key, List<String> problems) {
        return text(key, problems).flatMap(value -> {
            try {
                return Optional.of(Integer.parseInt(value));
            } catch (NumberFormatException notANumber) {
                problems.add(CdiMessages.notAnInteger(key, value));
                return Optional.empty();
            }
        });
    }

    /** Parses a lease time given by {@code source} (a key or an annotation member) and checks the core's range. */
    static Optional<Duration> lease(String source, String value, List<String> problems) {
        return checked(source, value, problems, LockArguments::checkLease, CdiMessages::leaseOutOfRange);
    }

    /** Parses a wait time given by {@code source} (a key or an annotation member); zero means one attempt. */
    static Optional<Duration> waitTime(String source, String value, List<String> problems) {
        return checked(source, value, problems, LockArguments::checkWait, CdiMessages::negativeWait);
    }

    /** Parses a minimum hold given by {@code source} (a key or an annotation member); zero means none. */
    static Optional<Duration> holdAtLeast(String source, String value, List<String> problems) {
        return checked(source, value, problems, LockArguments::checkHoldAtLeast, CdiMessages::holdAtLeastOutOfRange);
    }

    /**
     * Parses a duration and checks it with the core's own rule ({@code check} throws when it is out of
     * range); a value out of range is reported with {@code outOfRange}'s message, naming source and value.
     */
    private static Optional<Duration> checked(String source, String value, List<String> problems,
                                              BiFunction<Duration, String, Duration> check,
                                              BinaryOperator<String> outOfRange) {
        return duration(source, value, problems).flatMap(parsed -> {
            try {
                return Optional.of(check.apply(parsed, source));
            } catch (LockConfigurationException rejected) {
                problems.add(outOfRange.apply(source, value));
                return Optional.empty();
            }
        });
    }

    static Optional<Duration> duration(String source, String value, List<String> problems) {
        try {
            return Optional.of(Duration.parse(value.strip()));
        } catch (DateTimeParseException notIso) {
            problems.add(CdiMessages.notADuration(source, value));
            return Optional.empty();
        }
    }
}
