package io.github.mongolock.mongo;

import io.github.mongolock.LockConfigurationException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How a {@link VersionedCollection} update retries when another writer changed the document between its
 * read and its write: at most {@code maxAttempts} attempts in all, with a pause before each retry that
 * starts at {@code firstBackoff} and doubles up to {@code maxBackoff}. Each pause is drawn uniformly from
 * the upper half of its bound, so that writers that collided once, on one machine or several, spread out.
 *
 * <p>Validated when constructed: {@code maxAttempts} from 1 (no retry) to {@value #MAX_ATTEMPTS_LIMIT};
 * {@code firstBackoff} positive and at most {@code maxBackoff}; {@code maxBackoff} at most one minute.
 *
 * @param maxAttempts  attempts in all, the first included
 * @param firstBackoff the bound of the pause after the first conflict
 * @param maxBackoff   the bound no pause exceeds
 */
public record ConflictRetries(int maxAttempts, Duration firstBackoff, Duration maxBackoff) {

    /** The most attempts allowed: a document that contended needs a lock, not more retries. */
    public static final int MAX_ATTEMPTS_LIMIT = 10_000;

    /** The longest pause allowed between two attempts. */
    public static final Duration MAX_BACKOFF_LIMIT = Duration.ofMinutes(1);

    public ConflictRetries {
        if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_LIMIT) {
            throw new LockConfigurationException("maxAttempts " + maxAttempts + " is out of range: it must be from 1"
                    + " (one attempt, no retry) to " + MAX_ATTEMPTS_LIMIT + ". Pass e.g. "
                    + ConflictRetries.defaults().maxAttempts() + ".");
        }
        checkPositive("firstBackoff", firstBackoff);
        checkPositive("maxBackoff", maxBackoff);
        if (maxBackoff.compareTo(MAX_BACKOFF_LIMIT) > 0) {
            throw new LockConfigurationException("maxBackoff " + maxBackoff + " is out of range: it must be from"
                    + " firstBackoff (" + firstBackoff + ") to " + MAX_BACKOFF_LIMIT + ".");
        }
        if (firstBackoff.compareTo(maxBackoff) > 0) {
            throw new LockConfigurationException("firstBackoff " + firstBackoff + " is longer than maxBackoff "
                    + maxBackoff + ": the pauses grow from firstBackoff to maxBackoff, so firstBackoff must be at most"
                    + " maxBackoff.");
        }
    }

    /** 10 attempts, pauses from 5 ms doubling to 500 ms: about 1.5 s of pauses in all when every attempt conflicts. */
    public static ConflictRetries defaults() {
        return new ConflictRetries(10, Duration.ofMillis(5), Duration.ofMillis(500));
    }

    /** These retries with another number of attempts in all (1 to {@value #MAX_ATTEMPTS_LIMIT}). */
    public ConflictRetries withMaxAttempts(int attempts) {
        return new ConflictRetries(attempts, firstBackoff, maxBackoff);
    }

    /** These retries with other pause bounds (positive, {@code first} at most {@code max}, at most one minute). */
    public ConflictRetries withBackoff(Duration first, Duration max) {
        return new ConflictRetries(maxAttempts, first, max);
    }

    /**
     * @param conflicts the attempts that failed so far, at least 1
     * @return the pause before the next attempt, in nanoseconds
     */
    long pauseNanos(int conflicts) {
        long ceiling = firstBackoff.toNanos();
        for (int doubled = 1; doubled < conflicts && ceiling < maxBackoff.toNanos(); doubled++) {
            ceiling = Math.min(ceiling * 2, maxBackoff.toNanos());
        }
        long floor = ceiling / 2;
        return floor + ThreadLocalRandom.current().nextLong(ceiling - floor + 1);
    }

    private static void checkPositive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new LockConfigurationException(name + " " + value + " is out of range: it must be positive and at"
                    + " most " + MAX_BACKOFF_LIMIT + ", e.g. " + (name.equals("firstBackoff")
                    ? ConflictRetries.defaults().firstBackoff() : ConflictRetries.defaults().maxBackoff()) + ".");
        }
    }
}
