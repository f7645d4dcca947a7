package io.github.mongolock.core;

/**
 * What this manager does with the push feed's notices ({@link ReleaseFeed}): a release wakes its waiters for
 * that lock (or those permits), unless it is free for another manager's turn; notices missed wake every waiter, who then ask
 * the store. A wake-up moves the name's generation, which also ends the quiet its queued waiters keep
 * ({@link QueuePresence#quietOrClaimPoll}), even when the notice comes while one of them is still asking. Its
 * own class so that the coordinator only wires the feed, and the rule of which notice wakes whom reads in one
 * place. Thread-safe.
 */
final class ReleaseNotices implements ReleaseFeed.Listener {

    private final String manager;
    private final ReleaseSignals signals;
    private final ReleaseSignals permitSignals;
    private final ReleaseSignals readWriteSignals;

    /**
     * @param manager       this manager's id in lock and semaphore queues (the coordinator's owner prefix)
     * @param signals       the waiters for locks
     * @param permitSignals the waiters for permits
     * @param readWriteSignals the waiters for read-write locks
     */
    ReleaseNotices(String manager, ReleaseSignals signals, ReleaseSignals permitSignals, ReleaseSignals readWriteSignals) {
        this.manager = manager;
        this.signals = signals;
        this.permitSignals = permitSignals;
        this.readWriteSignals = readWriteSignals;
    }

    @Override
    public void released(String name, String queueHead) {
        if (queueHead != null && !queueHead.equals(manager)) {
            return; // free, but another manager's turn: our waiters could not take it
        }
        signals.released(name);
    }

    @Override
    public void permitsReleased(String name, String queueHead) {
        if (queueHead != null && !queueHead.equals(manager)) {
            return; // another manager's turn
        }
        permitSignals.released(name);
    }

    @Override
    public void readWriteReleased(String name, String queueHead) {
        // A reader may go whenever no writer is queued; a queued writer of another manager is its turn. A notice with a
        // head of this manager's could be for its writer; with another's, its readers could not pass anyway.
        if (queueHead != null && !queueHead.equals(manager)) {
            return;
        }
        readWriteSignals.released(name);
    }

    @Override
    public void missedSome() {
        signals.releasedAll();
        permitSignals.releasedAll();
        readWriteSignals.releasedAll();
    }

    @Override
    public boolean anyoneWaiting() {
        return signals.waitingNames() > 0 || permitSignals.waitingNames() > 0 || readWriteSignals.waitingNames() > 0;
    }
}
