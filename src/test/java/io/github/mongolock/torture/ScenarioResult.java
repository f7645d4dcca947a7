package io.github.mongolock.torture;

import java.time.Duration;

/** One scenario's outcome: the checker's report, how long it ran, and its recovery bound (null: none). */
record ScenarioResult(Scenario scenario, CheckReport report, Duration wallTime, Duration recoveryBound,
                      int faults, int hungWorkers) {
}
