package io.github.mongolock.core;

import io.github.mongolock.LockConfigurationException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/** The rules for lock names and durations, checked before anything reaches the store. */
public final class LockArguments {

    public static final int MAX_NAME_BYTES = 512;
    public static final Duration MIN_LEASE = Duration.ofMillis(100);
    public static final Duration MAX_LEASE = Duration.ofDays(365);

    private LockArguments() {
    }

    /** Names are stored as string values only, so {@code $}, dots and braces are harmless; NUL and size are not. */
    public static String checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw new LockConfigurationException("Lock name " + (name == null ? "null" : "\"\"")
                    + " is not allowed: a lock name must be a non-empty string of at most "
                    + MAX_NAME_BYTES + " UTF-8 bytes without NUL characters.");
        }
        int nul = name.indexOf('\0');
        if (nul >= 0) {
            throw new LockConfigurationException("Lock name " + quote(name) + " contains a NUL character at index "
                    + nul + ": a lock name must not contain NUL (\\u0000).");
        }
        int lone = loneSurrogate(name);
        if (lone >= 0) {
            // UTF-8 cannot encode it: MongoDB would store U+FFFD, and two such names would be one lock.
            throw new LockConfigurationException("Lock name " + quote(name) + " has a lone surrogate "
                    + String.format("\\u%04X", (int) name.charAt(lone)) + " at index " + lone
                    + ": a lock name must be well-formed UTF-16. Was a string cut in the middle of a character"
                    + " (e.g. an emoji)? Cut with String.offsetByCodePoints, or hash the key.");
        }
        // Every char is at most 3 UTF-8 bytes (a surrogate pair 4 for 2 chars): short names need no count.
        if (name.length() * 3L <= MAX_NAME_BYTES) {
            return name;
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_NAME_BYTES) {
            throw new LockConfigurationException("Lock name " + quote(name) + " is " + bytes
                    + " UTF-8 bytes long: at most " + MAX_NAME_BYTES + " are allowed. Use a shorter name, e.g. a hash of the long key.");
        }
        return name;
    }

    /** The index of the first surrogate that is not half of a pair, or -1. */
    private static int loneSurrogate(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /** @param source where the value came from, e.g. {@code "leaseTime"} or {@code "mongolock.lease-time"} */
    public static Duration checkLease(Duration lease, String source) {
        if (lease == null) {
            throw new LockConfigurationException(source + " must not be null: give a lease time between "
                    + MIN_LEASE + " and " + MAX_LEASE + ".");
        }
        if (lease.compareTo(MIN_LEASE) < 0 || lease.compareTo(MAX_LEASE) > 0) {
            throw new LockConfigurationException(source + " = " + lease + " is out of range: a lease time must be between "
                    + MIN_LEASE + " and " + MAX_LEASE + " (ISO-8601, e.g. PT30S).");
        }
        return lease;
    }

    /** Zero keeps nothing after the release; at most {@link #MAX_LEASE}, like a lease. */
    public static Duration checkHoldAtLeast(Duration holdAtLeast, String source) {
        if (holdAtLeast == null) {
            throw new LockConfigurationException(source + " must not be null: give a minimum hold of zero (none) or more.");
        }
        if (holdAtLeast.isNegative() || holdAtLeast.compareTo(MAX_LEASE) > 0) {
            throw new LockConfigurationException(source + " = " + holdAtLeast + " is out of range: a minimum hold must be"
                    + " between PT0S (none) and " + MAX_LEASE + " (ISO-8601, e.g. PT5M).");
        }
        return holdAtLeast;
    }

    /** Zero means one attempt; anything beyond ~292 years is treated as "wait forever". */
    public static Duration checkWait(Duration wait, String source) {
        if (wait == null) {
            throw new LockConfigurationException(source + " must not be null: give a wait time of zero (one attempt) or more.");
        }
        if (wait.isNegative()) {
            throw new LockConfigurationException(source + " = " + wait
                    + " is negative: a wait time must be zero (one attempt) or positive (ISO-8601, e.g. PT5S).");
        }
        return wait;
    }

    /** The rule a lock collection name breaks, if any (MongoDB's rules plus "not a system collection"). */
    public static Optional<String> collectionProblem(String collection) {
        if (collection.isEmpty() || collection.contains("$") || collection.contains("\0") || collection.startsWith("system.")) {
            return Optional.of("a collection name must be non-empty, without '$' or NUL, and must not start with \"system.\".");
        }
        return Optional.empty();
    }

    /** The rule a store timeout breaks, if any. */
    public static Optional<String> storeTimeoutProblem(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            return Optional.of("it must be positive, e.g. PT10S.");
        }
        if (timeout.toMillis() < 1) {
            // The driver counts in whole milliseconds and reads 0 as "no timeout at all".
            return Optional.of("it must be at least 1 ms (PT0.001S): the MongoDB driver counts whole milliseconds"
                    + " and would read it as 0, which means no timeout at all. Use e.g. PT10S.");
        }
        return Optional.empty();
    }

    /** The rule an instance id breaks, if any. */
    public static Optional<String> instanceIdProblem(String instanceId) {
        if (instanceId.isBlank() || instanceId.length() > 128 || instanceId.contains("\0")) {
            return Optional.of("an instance id must be 1 to 128 characters, not blank, without NUL.");
        }
        return Optional.empty();
    }

    static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    /** The most characters of a name that messages show; a longer one is cut there, its length given. */
    static final int SHOWN_CHARS = 80;

    /**
     * {@code name} in double quotes, as messages and logs may show a value that came from anywhere (a request, say):
     * control characters, Unicode format characters (such as the right-to-left override), line and paragraph
     * separators and lone surrogates as <code>&#92;uXXXX</code>, so that a name cannot break a log line or reorder it; past
     * {@value #SHOWN_CHARS} characters cut (never inside a character) and followed by {@code ...(<length> chars)}.
     */
    public static String quote(String name) {
        if (name == null) {
            return "null";
        }
        int end = name.length();
        if (end > SHOWN_CHARS) {
            end = Character.isHighSurrogate(name.charAt(SHOWN_CHARS - 1)) && Character.isLowSurrogate(name.charAt(SHOWN_CHARS))
                    ? SHOWN_CHARS - 1 : SHOWN_CHARS;
        }
        StringBuilder shown = new StringBuilder(end + 16).append('"');
        for (int i = 0; i < end; i++) {
            char c = name.charAt(i);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(name.charAt(i + 1));
            if (pair) {
                shown.append(c).append(name.charAt(++i));
            } else if (Character.isISOControl(c) || Character.getType(c) == Character.FORMAT || Character.isSurrogate(c)
                    || c == '\u2028' || c == '\u2029') {
                shown.append(String.format("\\u%04X", (int) c));
            } else {
                shown.append(c);
            }
        }
        if (end < name.length()) {
            shown.append("...(").append(name.length()).append(" chars)");
        }
        return shown.append('"').toString();
    }
}
