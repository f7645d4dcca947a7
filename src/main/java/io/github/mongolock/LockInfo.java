package io.github.mongolock;

import java.time.Instant;
import java.util.Objects;

/**
 * A snapshot of a held lock as stored in MongoDB.
 *
 * @param name         the lock's name
 * @param owner        the holder's acquisition: {@code <instance-id>:<manager nonce>:<acquisition number>}
 * @param holdCount    the holder's number of holds (re-entries + 1)
 * @param fencingToken the token of the holder's fresh acquisition
 * @param expiresAt    when the lease ends unless renewed, by the database's clock
 */
public record LockInfo(String name, String owner, int holdCount, long fencingToken, Instant expiresAt) {
    public LockInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }
}
