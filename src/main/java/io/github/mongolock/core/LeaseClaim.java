package io.github.mongolock.core;

/**
 * What the renewer asserts about a held lock: it is still {@code owner}'s, from the acquisition
 * whose lease is {@code leaseId} (unique per acquisition, so a claim can never match another
 * acquisition's document, even one of the same owner).
 */
public record LeaseClaim(String name, String owner, String leaseId) {
}
