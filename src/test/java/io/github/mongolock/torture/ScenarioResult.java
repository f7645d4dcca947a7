package io.github.mongolock.torture;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;

/**
 * One scenario's outcome: the checker's report, how long it ran, its recovery bound (null: none), the
 * faults injected (kills, pauses, outages, clock steps, and each connection reset or stalled; the workers' own
 * manager closes count as faults in the table), the workers that had to be killed because they
 * did not stop by themselves, and what the replica-set fault layer did ({@link Scenario#STALE_READS}; else
 * {@link StaleReadRounds.Figures#NONE}), and for the permits scenarios {@link PermitsChecker}'s report (else
 * {@link PermitsChecker.Report#NONE}; their kills and pauses are counted in its {@code takenOver} and in {@link #faults()}).
 */
record ScenarioResult(Scenario scenario, CheckReport report, Duration wallTime, Duration recoveryBound,
                      List<FaultEvent> events, int networkFaults, int hungWorkers, StaleReadRounds.Figures staleReads,
                      PermitsChecker.Report permits) {

    ScenarioResult {
        events = List.copyOf(events);
    }

    /** A scenario without the replica-set fault layer. */
    ScenarioResult(Scenario scenario, CheckReport report, Duration wallTime, Duration recoveryBound,
                   List<FaultEvent> events, int networkFaults, int hungWorkers) {
        this(scenario, report, wallTime, recoveryBound, events, networkFaults, hungWorkers, StaleReadRounds.Figures.NONE,
                PermitsChecker.Report.NONE);
    }

    /** Kills, pauses, outages and clock steps injected. */
    int faultEvents() {
        return events.size();
    }

    int faults() {
        int permitFaults = permitFaults();
        return faultEvents() + permitFaults + networkFaults + report.lifecycle().managerCloses() + (int) staleReads.elections()
                + (int) staleReads.lostReplies();
    }

    /** The kills and pauses of permit holders (permits scenarios): the harness's faults are recorded by the report there. */
    int permitFaults() {
        return permits.faults();
    }

    /** The clock steps, in the order made. */
    List<FaultEvent> clockSteps() {
        return events.stream().filter(e -> e.kind() == FaultEvent.Kind.CLOCK_STEP)
                .sorted(Comparator.comparingLong(FaultEvent::at)).toList();
    }

    /**
     * The kills made under a step behind the real time: the victim stopped after the step was written,
     * its lock granted again once the database's clock was seen at the step's offset (or was surely
     * there) and before the next step.
     */
    List<FaultEvent> killsWhileSteppedBack() {
        List<FaultEvent> back = clockSteps().stream().filter(step -> step.clockOffsetMillis() < 0).toList();
        return events.stream().filter(e -> e.kind() == FaultEvent.Kind.KILL && e.recovered())
                .filter(kill -> back.stream().anyMatch(step -> kill.at() - step.at() >= 0
                        && kill.recoveredAt() - step.signalled() >= 0 && step.until() - kill.recoveredAt() >= 0))
                .toList();
    }

    /** The largest forward step of the database's clock, from the real time to the first offset and between offsets. */
    long maxForwardStepMillis() {
        long previous = 0;
        long max = 0;
        for (FaultEvent step : clockSteps()) {
            max = Math.max(max, step.clockOffsetMillis() - previous);
            previous = step.clockOffsetMillis();
        }
        return max;
    }
}
