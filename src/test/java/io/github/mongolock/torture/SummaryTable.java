package io.github.mongolock.torture;

import java.time.Duration;
import java.util.List;

/** Renders scenario results as the Markdown table the README and the test output show. */
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
                + " | lost updates | unfenced lost updates | held at end | max recovery | bound | max store failure | wall time |\n");
        table.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
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
                    .append(" | ").append(recovery(result))
                    .append(" | ").append(result.recoveryBound() == null ? "-" : result.recoveryBound().toMillis() + " ms")
                    .append(" | ").append(r.maxStoreFailureNanos() < 0 ? "-" : millis(r.maxStoreFailureNanos()))
                    .append(" | ").append(result.wallTime().toSeconds()).append(" s |\n");
        }
        table.append("\nTotal critical sections: ").append(sections).append(". Max recovery: from a kill's or pause's"
                + " SIGSTOP, or from MongoDB's return after an outage, until the lock was granted again; for cut/skew"
                + " (no single fault instant) the longest time a lock stayed unused (idle gap).\n");
        for (ScenarioResult result : results) {
            if (!result.report().problems().isEmpty() || result.hungWorkers() > 0) {
                table.append("\n").append(result.scenario().title()).append(": ").append(result.hungWorkers())
                        .append(" hung worker(s)\n");
                result.report().problems().forEach(problem -> table.append("  - ").append(problem).append('\n'));
            }
        }
        return table.toString();
    }

    private static String recovery(ScenarioResult result) {
        CheckReport r = result.report();
        if (r.maxRecoveryNanos() >= 0) {
            return millis(r.maxRecoveryNanos()) + (r.unrecovered() > 0 ? " (" + r.unrecovered() + " unrecovered)" : "");
        }
        return r.maxIdleGapNanos() < 0 ? "-" : millis(r.maxIdleGapNanos()) + " (idle gap)";
    }

    private static String millis(long nanos) {
        return Duration.ofNanos(nanos).toMillis() + " ms";
    }
}
