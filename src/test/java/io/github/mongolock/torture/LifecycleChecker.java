package io.github.mongolock.torture;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The checker's rules for the lock's lifecycle (the {@code SHUTDOWN} and {@code HANDOVER} scenarios);
 * a pure function of the records, called by {@link HistoryChecker}.
 *
 * <ul>
 * <li><b>Held past close</b>: a lock document MongoDB showed held by an owner of a manager right after
 * that manager's {@code close()} returned; and a section of a closed manager that was still protected
 * ({@code isHeld()} true, asked after its end) at an end later than the return of its manager's
 * {@code close()}. Sections cut short by a close are not violations: their {@code isHeld()} turns
 * false, their writes are fenced off, and the checker no longer counts them as protected.</li>
 * <li><b>Unexpected re-entries</b>: an acquire that returned a hold count above 1 to a caller that
 * did not nest (the next task on a pooled thread that detached a hold of the same name).</li>
 * <li><b>Missed re-entries</b>: a task that attached a handed-over hold and nested an acquire of it
 * was not let in (hold count 2, the same token).</li>
 * <li><b>Foreign exceptions</b>: a caller got an exception outside the {@code LockException} hierarchy.</li>
 * </ul>
 */
final class LifecycleChecker {

    private LifecycleChecker() {
    }

    static CheckReport.LifecycleFigures check(List<SectionRecord> sections, List<AcquireFailure> failures,
                                              LifecycleHistory history, Consumer<String> problems) {
        Map<String, LifecycleHistory.ManagerClose> closes = new HashMap<>();
        int heldPastClose = 0;
        for (LifecycleHistory.ManagerClose close : history.closes()) {
            closes.put(close.instanceId(), close);
            for (String held : close.heldLocks()) {
                if (held.startsWith("?=")) {
                    problems.accept("after closing " + close.instanceId() + " the lock documents could not be read: "
                            + held.substring(2));
                } else {
                    heldPastClose++;
                    problems.accept("held past close: " + held + " still held right after " + close.instanceId()
                            + ".close() returned (it took " + (close.closeEnd() - close.closeStart()) + " ns)");
                }
            }
        }
        int cutByClose = 0;
        int pastClose = 0;
        for (SectionRecord section : sections) {
            int colon = section.owner().indexOf(':');
            LifecycleHistory.ManagerClose close = colon < 0 ? null : closes.get(section.owner().substring(0, colon));
            if (close == null) {
                continue;
            }
            if (section.start() < close.closeEnd() && section.end() > close.closeStart()) {
                cutByClose++;
            }
            if (section.end() > close.closeEnd()) {
                pastClose++;
            }
            if (section.protectedToEnd() && section.end() > close.closeEnd()) {
                heldPastClose++;
                problems.accept("held past close: " + section.process() + "/" + section.lock() + " token "
                        + section.token() + " (" + section.owner() + ") still held at its end " + section.end()
                        + ", after " + close.instanceId() + ".close() returned at " + close.closeEnd());
            }
        }
        int unexpected = 0;
        int missed = 0;
        for (LifecycleHistory.Reentry reentry : history.reentries()) {
            if (reentry.kind() == LifecycleHistory.Reentry.Kind.UNEXPECTED) {
                unexpected++;
                problems.accept("unexpected re-entry: " + reentry.process() + " got hold count " + reentry.holdCount()
                        + " of " + reentry.lock() + " token " + reentry.token() + " (" + reentry.owner()
                        + ") without nesting");
            } else {
                missed++;
                problems.accept("missed re-entry: " + reentry.process() + " attached " + reentry.lock() + " ("
                        + reentry.owner() + ") and its nested acquire got hold count " + reentry.holdCount()
                        + ", token " + reentry.token());
            }
        }
        for (LifecycleHistory.ForeignException foreign : history.foreignExceptions()) {
            problems.accept("not a LockException: " + foreign.process() + " " + foreign.call() + " threw "
                    + foreign.type() + ": " + foreign.message());
        }
        int closedWaiters = (int) failures.stream().filter(f -> f.kind().equals(AcquireFailure.CLOSED)).count();
        int crossed = (int) history.handovers().stream().filter(LifecycleHistory.Handover::crossedThreads).count();
        int refused = (int) history.detachedRetries().stream().filter(r -> r.outcome().equals("TIMEOUT")).count();
        return new CheckReport.LifecycleFigures(history.closes().size(), cutByClose, pastClose, closedWaiters, heldPastClose,
                history.handovers().size(), crossed, history.detachedRetries().size(), refused, unexpected, missed,
                history.foreignExceptions().size());
    }
}
