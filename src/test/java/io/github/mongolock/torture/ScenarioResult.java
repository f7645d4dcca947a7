package io.github.mongolock.torture;

import java.time.Duration;

/**
 * One scenario's outcome: the checker's report, how long it ran, its recovery bound (null: none), the
 * faults injected (kills, pauses, outages, and each connection reset or stalled; the workers' own
 * manager closes count as faults in the table) and the workers that had to be killed because they
 * did not stop by themselves.
 */
record ScenarioResult(Scenario scenario, CheckReport report, Duration wallTime, Duration recoveryBound,
                      int faultEvents, int networkFaults, int hungWorkers) {

    int faults() {
        return faultEvents + networkFaults + report.lifecycle().managerCloses();
    }
}
