package io.github.mongolock.torture;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Renders scenario results as the Markdown table docs/torture.md and the test output show. */
final class SummaryTable {

    private SummaryTable() {
    }

    static String render(TortureConfig config, List<ScenarioResult> results) {
        StringBuilder table = new StringBuilder();
        table.append("Torture run \"").append(config.name()).append("\": ").append(config.workers()).append(" processes x ")
                .append(config.threads()).append(" threads, ").append(config.locks()).append(" locks, lease ")
                .append(config.lease().toMillis()).append(" ms, store timeout ").append(config.storeTimeout().toMillis())
                .append(" ms, up to ").append(config.scenarioTime().toSeconds()).append(" s or ")
                .append(config.maxSections()).append(" sections per scenario\n\n");
        table.append("| scenario | faults | critical sections | killed inside | told lost | overlaps | token-order violations"
                + " | lost updates | unfenced lost updates | held at end | held past close | unexpected re-entries"
                + " | double leaders | max recovery | bound | from the fault | max store failure | wall time |\n");
        table.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        int sections = 0;
        for (ScenarioResult result : results) {
            CheckReport r = result.report();
            sections += r.sections();
            table.append("| ").append(result.scenario().title())
                    .append(" | ").append(result.faults())
                    .append(" | ").append(r.sections())
                    .append(" | ").append(r.killedInside())
                    .append(" | ").append(r.toldLost())
                    .append(" | ").append(r.overlaps())
                    .append(" | ").append(r.tokenOrderViolations())
                    .append(" | ").append(r.lostUpdates())
                    .append(" | ").append(r.unfencedLostUpdates())
                    .append(" | ").append(r.locksHeldAtEnd())
                    .append(" | ").append(r.heldPastClose())
                    .append(" | ").append(r.unexpectedReentries())
                    .append(" | ").append(result.scenario() == Scenario.LEADER ? Integer.toString(r.leader().doubleLeaders()) : "-")
                    .append(" | ").append(recovery(result))
                    .append(" | ").append(result.recoveryBound() == null ? "-" : result.recoveryBound().toMillis() + " ms")
                    .append(" | ").append(r.maxRecoveryNanos() < 0 ? "-" : millis(r.maxRecoveryNanos()))
                    .append(" | ").append(r.maxStoreFailureNanos() < 0 ? "-" : millis(r.maxStoreFailureNanos()))
                    .append(" | ").append(result.wallTime().toSeconds()).append(" s |\n");
        }
        table.append("\nTotal critical sections: ").append(sections).append(". Max recovery: from the later of a kill's or"
                + " pause's SIGSTOP and the first waiter in another process asking for the lock, or from MongoDB's return"
                + " after an outage, until the lock was granted again; for cut/skew (no single fault instant) the longest"
                + " time a lock stayed unused (idle gap). From the fault: the same grant counted from the SIGSTOP. For the"
                + " leader election: the failover, from the leader's SIGSTOP to the next term's first sighting (its first"
                + " isLeader() yes, its granted callback, or the lock document); double leaders: pairs of terms that"
                + " surely answered isLeader() yes at the same time.\n");
        for (ScenarioResult result : results) {
            lifecycleLine(result).ifPresent(line -> table.append('\n').append(line).append('\n'));
        }
        for (ScenarioResult result : results) {
            if (!result.report().problems().isEmpty() || result.hungWorkers() > 0) {
                table.append("\n").append(result.scenario().title()).append(": ").append(result.hungWorkers())
                        .append(" hung worker(s)\n");
                result.report().problems().forEach(problem -> table.append("  - ").append(problem).append('\n'));
            }
        }
        permitsTable(results, table);
        readWriteTable(results, table);
        return table.toString();
    }

    /** The read-write scenarios' own figures ({@link ReadWriteChecker}): the semaphore's report, read for modes. */
    private static void readWriteTable(List<ScenarioResult> results, StringBuilder table) {
        List<ScenarioResult> rw = results.stream().filter(result -> result.scenario().readWrite()).toList();
        if (rw.isEmpty()) {
            return;
        }
        table.append("\n| scenario | faults | holds | writes | killed inside | told lost | most readers believed at once"
                + " | writes started alone | writer beside another holder | token-order violations | lost updates | regranted"
                + " | unrecovered | max regrant | bound | from the fault | end state | held at end"
                + " | paused in close, told store failure | stalled acquires | longest stall | wall time |\n");
        table.append("|---|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        rw.forEach(result -> permitsRow(result, true, table));
        table.append("\nRead-write: stalled acquires timed out while nobody was granted their name (not asserted unless"
                + " -D" + TortureTest.ASSERT_STALLS + "=false to report them only: DeadReadWriteHolderTest);"
                + " max regrant from the later of a holder's SIGSTOP and the first call of another process told busy (a"
                + " writer's, for a dead reader) until its access was seen granted again (from the fault: from the SIGSTOP).\n");
        permitsProblems(rw, table);
    }

    /**
     * A permits or read-write scenario's row ({@link PermitsChecker.Report}); {@code withStalls} adds the read-write
     * columns of stalled acquires and the longest stall before the wall time.
     */
    private static void permitsRow(ScenarioResult result, boolean withStalls, StringBuilder table) {
        PermitsChecker.Report p = result.permits();
        table.append("| ").append(result.scenario().title())
                .append(" | ").append(p.faults())
                .append(" | ").append(p.sections())
                .append(" | ").append(p.twoPermitSections())
                .append(" | ").append(p.killedInside())
                .append(" | ").append(p.toldLost())
                .append(" | ").append(p.maxBelieved().toString().replace("=", ": "))
                .append(" | ").append(p.atLimit())
                .append(" | ").append(p.overLimit())
                .append(" | ").append(p.tokenOrderViolations())
                .append(" | ").append(result.report().lostUpdates())
                .append(" | ").append(p.takenOver())
                .append(" | ").append(p.unrecovered())
                .append(" | ").append(millisOrDash(p.maxRegrantFromWatchNanos()))
                .append(" | ").append(result.recoveryBound() == null ? "-" : result.recoveryBound().toMillis() + " ms")
                .append(" | ").append(millisOrDash(p.maxRegrantNanos()))
                .append(" | ").append(p.endStateViolations())
                .append(" | ").append(p.heldAtEnd())
                .append(" | ").append(p.storeFailedCloses());
        if (withStalls) {
            table.append(" | ").append(p.stalledAcquires())
                    .append(" | ").append(millisOrDash(p.maxStallNanos()));
        }
        table.append(" | ").append(result.wallTime().toSeconds()).append(" s |\n");
    }

    /** The problems the permits checker listed, per scenario that has any. */
    private static void permitsProblems(List<ScenarioResult> results, StringBuilder table) {
        for (ScenarioResult result : results) {
            if (!result.permits().problems().isEmpty()) {
                table.append("\n").append(result.scenario().title()).append(":\n");
                result.permits().problems().forEach(problem -> table.append("  - ").append(problem).append('\n'));
            }
        }
    }

    /** The permits scenarios' own figures ({@link PermitsChecker}), a table of their own: their holds are not sections of a lock. */
    private static void permitsTable(List<ScenarioResult> results, StringBuilder table) {
        List<ScenarioResult> permits = results.stream().filter(result -> result.scenario().permits()
                && !result.scenario().readWrite()).toList();
        if (permits.isEmpty()) {
            return;
        }
        table.append("\n| scenario | faults | holds | of 2 permits | killed inside | told lost | most believed held | starts at"
                + " the limit | above the limit | token-order violations | lost updates | regranted | unrecovered"
                + " | max regrant | bound | from the fault | end state | held at end | paused in close, told store failure | wall time |\n");
        table.append("|---|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        permits.forEach(result -> permitsRow(result, false, table));
        table.append("\nPermits: most believed held, per semaphore (limits 2 and 3), the checker's own sum at a hold's start;"
                + " max regrant from the later of a holder's SIGSTOP and the first call of another process told busy (its"
                + " first attempt found too few permits free) until its permits were seen granted again (from the fault: from the SIGSTOP).\n");
        permitsProblems(permits, table);
    }

    /** The lifecycle, clock and replica-set scenarios' own figures, which the table's columns do not show. */
    private static Optional<String> lifecycleLine(ScenarioResult result) {
        CheckReport.LifecycleFigures f = result.report().lifecycle();
        return switch (result.scenario()) {
            case SHUTDOWN -> Optional.of(result.scenario().title() + ": " + f.managerCloses() + " managers closed under load,"
                    + " " + f.sectionsCutByClose() + " sections under way during a close (" + f.sectionsPastClose()
                    + " still working when it returned), " + f.closedWaiters()
                    + " acquires told the manager is closed; " + f.heldPastClose() + " held past close, "
                    + f.foreignExceptions() + " non-LockException(s).");
            case HANDOVER -> Optional.of(result.scenario().title() + ": " + f.handovers() + " holds handed over, "
                    + f.crossThreadHandovers() + " finished on another thread; " + f.detachedRetries()
                    + " acquires on a thread that had detached an open hold of the name (" + f.detachedRefused()
                    + " found it busy to the end); " + f.unexpectedReentries() + " unexpected re-entries, "
                    + f.missedReentries() + " missed re-entries, " + f.foreignExceptions() + " non-LockException(s).");
            case SERVER_CLOCK -> Optional.of(result.scenario().title() + ": " + result.clockSteps().size()
                    + " clock steps, offsets in order " + result.clockSteps().stream()
                            .map(step -> (step.clockOffsetMillis() > 0 ? "+" : "") + step.clockOffsetMillis() / 1000.0 + " s")
                            .toList()
                    + " (largest forward step " + result.maxForwardStepMillis() / 1000.0 + " s; the fast path assumes none"
                    + " reaches " + Scenario.FAST_PATH_STEP.toSeconds() + " s); "
                    + result.events().stream().filter(e -> e.kind() == FaultEvent.Kind.KILL).count() + " holder(s) killed, "
                    + result.killsWhileSteppedBack().size() + " while the clock was stepped back; "
                    + result.report().takenFromLiveHolders() + " lock(s) taken from a live holder.");
            case LEADER -> {
                CheckReport.LeaderFigures l = result.report().leader();
                yield Optional.of(result.scenario().title() + ": " + l.answers() + " isLeader() yes answers recorded over "
                        + l.terms() + " terms; " + l.doubleLeaders() + " double leaders, " + l.termOrderViolations()
                        + " term-order violations; failover after a kill max " + millisOrDash(l.maxKillFailoverNanos())
                        + ", after a pause max " + millisOrDash(l.maxPauseFailoverNanos()) + " (bound "
                        + result.recoveryBound().toMillis() + " ms, " + l.failovers() + " failovers, " + l.unrecovered()
                        + " unrecovered); " + l.leaseLosses() + " leases lost by running leaders (cut connections), "
                        + l.toldLate() + " of them told after the next term's first answer.");
            }
            case MANY_LOCKS -> {
                CheckReport r = result.report();
                yield Optional.of(result.scenario().title() + ": " + victims("kills", r.killVictims()) + "; "
                        + victims("pauses", r.pauseVictims()) + "; each of those locks judged on its own: recovery at most "
                        + millisOrDash(r.maxRecoveryFromWatchNanos()) + " from the later of the SIGSTOP and its first waiter's"
                        + " arrival (bound " + result.recoveryBound().toMillis() + " ms), " + millisOrDash(r.maxRecoveryNanos())
                        + " from the SIGSTOP, " + r.unrecovered() + " never granted again to another process.");
            }
            case STALE_READS -> {
                StaleReadRounds.Figures stale = result.staleReads();
                yield Optional.of(result.scenario().title() + ": " + stale.rounds() + " rounds, " + stale.kills() + " holders killed"
                        + " (their replacements' sessions missing from the next snapshot); " + stale.longHoldsMet() + " long holds under a"
                        + " session the snapshot lacked met; " + stale.elections() + " elections ("
                        + stale.electionsOnTheirRead() + " of the stale ones begun at the read they were armed for); "
                        + stale.staleReads() + " majority reads answered from a snapshot: " + stale.staleSessionReads()
                        + " of sessions (" + stale.sessionsNotFound() + " not found), " + stale.staleLockReads() + " of locks ("
                        + stale.locksNotFound() + " not found), " + stale.staleFloorReads() + " of the token floor ("
                        + stale.floorsNotFound() + " not found); " + stale.idleLocksRemoved() + " idle lock documents removed; "
                        + stale.lostReplies() + " answers lost, " + stale.rolledBackWrites() + " writes rolled back, "
                        + stale.keptWrites() + " kept (a later answered write covered them), " + stale.unchangedWrites()
                        + " had changed nothing"
                        + (stale.layerProblems().isEmpty() ? "" : "; problems in the layer: " + stale.layerProblems()) + ".");
            }
            default -> Optional.empty();
        };
    }

    /** The victims of kills or pauses that held many locks: how many they held, and when the last was granted again. */
    private static String victims(String what, CheckReport.VictimFigures v) {
        return v.victims() + " " + what + (v.victims() == 0 ? "" : " of workers holding " + v.minLocksHeld()
                + (v.maxLocksHeld() == v.minLocksHeld() ? "" : "-" + v.maxLocksHeld()) + " locks (" + v.locksHeld()
                + " in all); the last of a victim's locks granted again at most " + millisOrDash(v.maxLastGrantNanos())
                + " after its SIGSTOP, " + millisOrDash(v.maxLastGrantFromWatchNanos())
                + " after the first waiter's arrival at any of them");
    }

    private static String millisOrDash(long nanos) {
        return nanos < 0 ? "-" : millis(nanos);
    }

    private static String recovery(ScenarioResult result) {
        CheckReport r = result.report();
        if (r.maxRecoveryFromWatchNanos() >= 0) {
            return millis(r.maxRecoveryFromWatchNanos()) + (r.unrecovered() > 0 ? " (" + r.unrecovered() + " unrecovered)" : "");
        }
        return r.maxIdleGapNanos() < 0 ? "-" : millis(r.maxIdleGapNanos()) + " (idle gap)";
    }

    private static String millis(long nanos) {
        return Duration.ofNanos(nanos).toMillis() + " ms";
    }
}
