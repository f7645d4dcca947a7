package io.github.mongolock.torture;

/**
 * A per-lock counter document at the end of a run. Each section adds one to {@code value} by a
 * non-atomic read-modify-write and, in the same update, one to {@code writes} atomically; the same
 * for {@code plain}/{@code plainWrites} without fencing. A value behind its write count is a lost update.
 */
record CounterState(String lock, long value, long writes, long plain, long plainWrites, long fence) {

    long lostUpdates() {
        return writes - value;
    }

    long unfencedLostUpdates() {
        return plainWrites - plain;
    }
}
