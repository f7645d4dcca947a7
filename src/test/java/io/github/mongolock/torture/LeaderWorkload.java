package io.github.mongolock.torture;

import io.github.mongolock.LeaderElections;
import io.github.mongolock.Leadership;
import io.github.mongolock.LeadershipListener;
import io.github.mongolock.LeadershipOptions;
import io.github.mongolock.LockManager;
import io.github.mongolock.RevocationReason;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The {@code LEADER} workload of one worker process: it joins the election {@link WorkerSettings#ELECTION}
 * (lease as configured, a poll every fifth of it) and, until the deadline, one thread asks
 * {@link Leadership#term()} (isLeader() and the term in one answer) about every 100 µs, taking
 * {@link System#nanoTime()} before and after each call. Yes answers are written to the history: the first
 * of each run, then at most one every {@value #WRITE_EVERY_MICROS} µs, and the last before a no, so that
 * {@link LeaderChecker} sees each run's true first and last answers, and a kill loses at most the last
 * {@value #WRITE_EVERY_MICROS} µs of it. The listener's calls are written too.
 */
final class LeaderWorkload {

    static final long WRITE_EVERY_MICROS = 2_000;
    private static final long ASK_EVERY_NANOS = 100_000;

    private final WorkerSettings settings;
    private final HistoryWriter history;
    private final LockManager locks;

    LeaderWorkload(WorkerSettings settings, HistoryWriter history, LockManager locks) {
        this.settings = settings;
        this.history = history;
        this.locks = locks;
    }

    void run() {
        Duration lease = Duration.ofMillis(settings.leaseMs());
        try (LeaderElections elections = new LeaderElections(locks)) {
            Leadership leadership = elections.join(WorkerSettings.ELECTION, LeadershipOptions.defaults().leaseTime(lease),
                    new LeadershipListener() {
                        @Override
                        public void granted(long term) {
                            history.leadershipGranted(term, System.nanoTime());
                        }

                        @Override
                        public void revoked(long term, RevocationReason reason) {
                            history.leadershipRevoked(term, reason.name(), System.nanoTime());
                        }
                    });
            history.joined(WorkerSettings.ELECTION, System.nanoTime());
            ask(leadership);
        }
    }

    private void ask(Leadership leadership) {
        long runTerm = -1;
        long lastWritten = 0;
        long[] unwritten = null; // the latest yes of the run not written yet: {term, before, after}
        while (settings.deadlineNanos() - System.nanoTime() > 0) {
            long before = System.nanoTime();
            OptionalLong term = leadership.term();
            long after = System.nanoTime();
            if (term.isPresent()) {
                long t = term.getAsLong();
                if (t != runTerm || after - lastWritten >= WRITE_EVERY_MICROS * 1_000) {
                    if (t != runTerm && unwritten != null) {
                        history.leaderAnswer(unwritten[0], unwritten[1], unwritten[2]);
                    }
                    history.leaderAnswer(t, before, after);
                    runTerm = t;
                    lastWritten = after;
                    unwritten = null;
                } else {
                    unwritten = new long[] {t, before, after};
                }
            } else {
                if (unwritten != null) {
                    history.leaderAnswer(unwritten[0], unwritten[1], unwritten[2]);
                    unwritten = null;
                }
                runTerm = -1;
            }
            LockSupport.parkNanos(ASK_EVERY_NANOS);
        }
        if (unwritten != null) {
            history.leaderAnswer(unwritten[0], unwritten[1], unwritten[2]);
        }
    }
}
