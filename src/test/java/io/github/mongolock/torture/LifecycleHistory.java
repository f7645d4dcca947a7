package io.github.mongolock.torture;

import java.util.ArrayList;
import java.util.List;

/**
 * What the {@code SHUTDOWN} and {@code HANDOVER} workloads record besides critical sections (see
 * {@link HistoryReader} for the lines). Times are {@link System#nanoTime()} values.
 *
 * @param closes            every lock manager a worker closed, with what MongoDB showed right after
 * @param reentries         acquires whose hold count said something other than what the caller did
 * @param handovers         holds acquired on one pool thread and finished by another task
 * @param detachedRetries   acquires made on a thread that had acquired, and detached, a still open hold of that name
 * @param foreignExceptions exceptions outside the {@code LockException} hierarchy that reached a caller
 */
record LifecycleHistory(List<ManagerClose> closes, List<Reentry> reentries, List<Handover> handovers,
                        List<DetachedRetry> detachedRetries, List<ForeignException> foreignExceptions) {

    static final LifecycleHistory NONE = new LifecycleHistory(List.of(), List.of(), List.of(), List.of(), List.of());

    LifecycleHistory {
        closes = List.copyOf(closes);
        reentries = List.copyOf(reentries);
        handovers = List.copyOf(handovers);
        detachedRetries = List.copyOf(detachedRetries);
        foreignExceptions = List.copyOf(foreignExceptions);
    }

    static LifecycleHistory merge(List<LifecycleHistory> histories) {
        List<ManagerClose> closes = new ArrayList<>();
        List<Reentry> reentries = new ArrayList<>();
        List<Handover> handovers = new ArrayList<>();
        List<DetachedRetry> retries = new ArrayList<>();
        List<ForeignException> foreign = new ArrayList<>();
        for (LifecycleHistory history : histories) {
            closes.addAll(history.closes());
            reentries.addAll(history.reentries());
            handovers.addAll(history.handovers());
            retries.addAll(history.detachedRetries());
            foreign.addAll(history.foreignExceptions());
        }
        return new LifecycleHistory(closes, reentries, handovers, retries, foreign);
    }

    /**
     * A {@code MongoLockManager.close()} and the check that followed it.
     *
     * @param instanceId the manager's instance id, unique per manager in a run: its owners start with
     *                   {@code instanceId + ":"}
     * @param closeStart just before {@code close()} was called
     * @param closeEnd   just after it returned
     * @param heldLocks  the locks MongoDB showed held ({@code holds > 0}) by an owner of that manager
     *                   right after {@code close()} returned, as {@code name=owner}
     */
    record ManagerClose(String process, String instanceId, long closeStart, long closeEnd, List<String> heldLocks) {

        ManagerClose {
            heldLocks = List.copyOf(heldLocks);
        }

        boolean wrote(String owner) {
            return owner.startsWith(instanceId + ":");
        }
    }

    /**
     * An acquire whose hold count contradicts the caller: {@link Kind#UNEXPECTED}, a caller that did not
     * nest re-entered a hold (e.g. a detached one on its pooled thread); {@link Kind#MISSED}, a task
     * that attached a hold and nested an acquire did not re-enter it.
     */
    record Reentry(String process, String lock, long token, String owner, int holdCount, Kind kind, long at) {

        enum Kind { UNEXPECTED, MISSED }
    }

    /** A hold acquired by a task on thread {@code acquiredOn}, finished and closed by another task on {@code finishedOn}. */
    record Handover(String process, String lock, long token, String acquiredOn, String finishedOn) {

        boolean crossedThreads() {
            return !acquiredOn.equals(finishedOn);
        }
    }

    /**
     * An acquire on a thread that had acquired and detached a hold of the same name still open when the
     * acquire began: it must wait like any other caller.
     *
     * @param outcome {@code TIMEOUT} (it found the lock busy to the end), {@code GRANTED} (a fresh hold,
     *                after the detached one was closed) or the simple name of another exception
     */
    record DetachedRetry(String process, String lock, String thread, String outcome) {
    }

    /** An exception a caller got from the lock API that is not a {@code LockException}. */
    record ForeignException(String process, String call, String type, String message) {
    }
}
