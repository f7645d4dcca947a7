package io.github.mongolock.torture;

/**
 * One connection the proxy reset or stalled ({@link FaultInjector#cutConnections}). Kept apart from
 * {@link FaultEvent}: the checker judges no recovery from these (there are hundreds, and a cut may hit
 * an idle connection), only the timeline draws them.
 *
 * @param kind  a reset, or a stall whose bytes are held until {@code until}
 * @param at    when the proxy was told (nanoTime)
 * @param until {@code at} for a reset; when a stall's bytes are let through
 */
record NetworkFault(Kind kind, long at, long until) {

    enum Kind { CUT, STALL }
}
