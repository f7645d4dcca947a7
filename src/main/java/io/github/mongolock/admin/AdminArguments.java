package io.github.mongolock.admin;

import io.github.mongolock.mongo.RedactedUri;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command line of {@link LockAdminCommand}, parsed: the command, its lock name if it takes one, and the
 * {@code --option value} pairs. Every problem is an {@link UsageError} naming the argument at fault. Immutable.
 *
 * @param command  {@code list}, {@code inspect}, {@code release}, {@code inspect-permits}, {@code release-permits},
 *                 {@code inspect-rw} or {@code release-rw}
 * @param name     the lock name of {@code inspect} and {@code release}, the semaphore name of {@code inspect-permits}
 *                 and {@code release-permits}, the read-write lock name of {@code inspect-rw} and {@code release-rw};
 *                 null for {@code list}
 * @param options  option name (without {@code --}) to value
 */
record AdminArguments(String command, String name, Map<String, String> options) {

    /** Options every command takes. */
    private static final Set<String> CONNECTION = Set.of("uri", "database", "collection", "timeout");
    private static final Map<String, Set<String>> COMMAND_OPTIONS = Map.of(
            "list", Set.of("prefix", "limit"),
            "inspect", Set.of(),
            "release", Set.of("reason", "owner", "by"),
            "inspect-permits", Set.of(),
            "release-permits", Set.of("reason", "owner", "by"),
            "inspect-rw", Set.of(),
            "release-rw", Set.of("reason", "owner", "by"));
    private static final String COMMANDS = "list, inspect, release, inspect-permits, release-permits, inspect-rw or release-rw";

    AdminArguments {
        options = Map.copyOf(options);
    }

    /** A command line that cannot be run; the message names the argument at fault. */
    static final class UsageError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageError(String message) {
            super(message);
        }
    }

    static AdminArguments parse(String... args) {
        if (args.length == 0) {
            throw new UsageError("no command given: expected " + COMMANDS);
        }
        String command = args[0];
        Set<String> allowed = COMMAND_OPTIONS.get(command);
        if (allowed == null) {
            throw new UsageError("unknown command \"" + command + "\": expected " + COMMANDS);
        }
        List<String> positional = new ArrayList<>();
        Map<String, String> options = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                positional.add(arg);
                continue;
            }
            int equals = arg.indexOf('=');
            String key = arg.substring(2, equals < 0 ? arg.length() : equals);
            if (!CONNECTION.contains(key) && !allowed.contains(key)) {
                // Its value is not repeated: it may be a connection string given under a misspelt name.
                throw new UsageError("unknown option \"--" + RedactedUri.of(key) + "\" for " + command);
            }
            String value;
            if (equals >= 0) {
                value = arg.substring(equals + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new UsageError("option --" + key + " needs a value");
            }
            if (options.put(key, value) != null) {
                throw new UsageError("option --" + key + " given twice");
            }
        }
        boolean takesName = !command.equals("list");
        if (positional.size() != (takesName ? 1 : 0)) {
            // A connection string given without --uri lands here: shown redacted.
            List<String> shown = positional.stream().map(arg -> RedactedUri.of(arg).toString()).toList();
            String what = command.endsWith("-permits") ? " semaphore name"
                    : command.endsWith("-rw") ? " read-write lock name" : " lock name";
            throw new UsageError(takesName ? command + " takes one" + what + ", got " + positional.size() + ": " + shown
                    : "list takes no lock name, got " + shown + " (use --prefix)");
        }
        if (!options.containsKey("uri")) {
            throw new UsageError("--uri is missing: give the MongoDB connection string, e.g. --uri mongodb://db1:27017");
        }
        if (command.equals("release") && (!options.containsKey("reason") || options.get("reason").isBlank())) {
            throw new UsageError("--reason is missing: say why the lock is released; its holder is told, and the lock records it");
        }
        if (command.equals("release-permits") && (!options.containsKey("reason") || options.get("reason").isBlank())) {
            throw new UsageError("--reason is missing: say why the permits are released; the semaphore records it");
        }
        if (command.equals("release-permits") && (!options.containsKey("owner") || options.get("owner").isBlank())) {
            throw new UsageError("--owner is missing: name the holder whose permits to release (inspect-permits NAME shows them)");
        }
        if (command.equals("release-rw") && (!options.containsKey("reason") || options.get("reason").isBlank())) {
            throw new UsageError("--reason is missing: say why the access is released; the read-write lock records it");
        }
        if (command.equals("release-rw") && (!options.containsKey("owner") || options.get("owner").isBlank())) {
            throw new UsageError("--owner is missing: name the holder whose access to release (inspect-rw NAME shows them)");
        }
        return new AdminArguments(command, takesName ? positional.get(0) : null, options);
    }

    String option(String key, String otherwise) {
        return options.getOrDefault(key, otherwise);
    }

    int intOption(String key, int otherwise, int min, int max) {
        String value = options.get(key);
        if (value == null) {
            return otherwise;
        }
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException notANumber) {
            // reported below, with the rule
        }
        throw new UsageError("--" + key + " " + RedactedUri.of(value) + " is not valid: expected a whole number from " + min
                + " to " + max);
    }
}
