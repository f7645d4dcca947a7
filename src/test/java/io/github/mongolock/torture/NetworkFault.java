package io.github.mongolock.torture;

/**
 * One connection the proxy reset or stalled ({@link FaultInjector#cutConnections}), or one fault of the
 * replica-set layer ({@link StaleReadRounds}). Kept apart from {@link FaultEvent}: the checker judges no
 * recovery from these (there are hundreds, and a cut may hit an idle connection), only the timeline draws them.
 *
 * @param kind  a reset, or a stall whose bytes are held until {@code until}; a write's answer lost (rolled back
 *              by an election at once, or not), or a stale window
 * @param at    when the proxy was told, the answer dropped, or the window opened (nanoTime)
 * @param until {@code at} for a reset or a lost answer; when a stall's bytes are let through, or the window closed
 */
record NetworkFault(Kind kind, long at, long until) {

    enum Kind {
        CUT,
        STALL,
        /** A write applied, its answer lost and its connection reset. */
        LOST_REPLY,
        /** As LOST_REPLY, then an election at once rolled the write back. */
        ROLLED_BACK,
        /** After an election, majority reads answered from an older snapshot. */
        STALE_WINDOW
    }
}
