package io.github.mongolock.core;

/** What the renewer asserts about a held lock: it is still {@code owner}'s, from the acquisition that got {@code fencingToken}. */
public record LeaseClaim(String name, String owner, long fencingToken) {
}
