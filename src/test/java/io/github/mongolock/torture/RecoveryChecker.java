package io.github.mongolock.torture;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The checker's recovery rule for kills, pauses and outages, lock by lock; a pure function of the
 * records, called by {@link HistoryChecker}.
 *
 * <p><b>Recovery</b> of one lock: from a kill's or pause's SIGSTOP, or from the end of an outage, to the
 * earlier of two sightings of the next grant: the harness's poll of the lock document (see
 * {@link FaultEvent#recoveredAt()}) and the recorded start of the next section (of the victim's lock in
 * another process; after an outage, of any lock). After a kill or a pause another process must have run a
 * section of that lock. <b>Recovery from the watch</b> counts the same grant from the later of the SIGSTOP
 * and the moment the first waiter in another process began waiting for the lock (the earliest acquire
 * call on it, granted or not, still under way at the SIGSTOP or begun after it): a waiter cannot see a lock
 * held before it asks, and the lease rule promises the grant within a bound of the waiter first seeing the
 * lock held. Where a waiter was there all along, the two are the same.
 *
 * <p>A victim that held many locks ({@link FaultEvent#alsoHeld()}) is judged on every one of them, each
 * with its own token, grant and first waiter. Per victim, <b>the last grant</b>: from the SIGSTOP until
 * the last of its locks was granted again, and the same from the later of the SIGSTOP and the first
 * waiter's arrival at any of its locks (once a waiter has ended the victim's session, the others of its
 * locks are taken as soon as somebody asks).
 */
final class RecoveryChecker {

    /**
     * @param maxNanos          the longest recovery of one lock, from the fault
     * @param maxFromWatchNanos the same, from the later of the fault and the first waiter's arrival at that lock
     * @param unrecovered       locks never granted again after a fault, or never run by another process
     * @param kills             the victims of kills: how many locks each held, how long until the last was granted again
     * @param pauses            the same for pauses
     */
    record Recovery(long maxNanos, long maxFromWatchNanos, int unrecovered, CheckReport.VictimFigures kills,
                    CheckReport.VictimFigures pauses) {
    }

    /** The last grant of one victim's locks, its earliest waiter, and its grants it never received. */
    private static final class Victim {
        long lastGrant = Long.MIN_VALUE;
        long firstWatch = Long.MAX_VALUE;
        int grantsNeverReceived;
    }

    private RecoveryChecker() {
    }

    static Recovery check(List<SectionRecord> sections, List<AcquireFailure> failures, List<FaultEvent> faults,
                          Consumer<String> problems) {
        Map<String, List<SectionRecord>> sectionsByLock = sections.stream().collect(Collectors.groupingBy(SectionRecord::lock));
        Map<String, List<AcquireFailure>> failuresByLock = failures.stream().collect(Collectors.groupingBy(AcquireFailure::lock));
        long max = -1;
        long maxFromWatch = -1;
        int unrecovered = 0;
        CheckReport.VictimFigures kills = CheckReport.VictimFigures.NONE;
        CheckReport.VictimFigures pauses = CheckReport.VictimFigures.NONE;
        for (FaultEvent fault : faults) {
            if (!fault.needsRecovery()) {
                continue; // a clock step takes no lock away: overlaps and token order judge it
            }
            Victim victim = new Victim();
            for (FaultEvent ofLock : fault.perLock()) {
                if (fault.kind() == FaultEvent.Kind.PAUSE && grantNeverReceived(ofLock,
                        sectionsByLock.getOrDefault(ofLock.lock(), List.of()), failuresByLock.getOrDefault(ofLock.lock(), List.of()))) {
                    // The victim never held it, and after the SIGCONT it was the victim's again to ask for: no
                    // waiter's watch began with the victim holding it. (A killed victim's such grant stays an
                    // orphan under its dead session: that one is a recovery like the others.)
                    victim.grantsNeverReceived++;
                    continue;
                }
                List<SectionRecord> candidates = fault.kind() == FaultEvent.Kind.OUTAGE ? sections
                        : sectionsByLock.getOrDefault(ofLock.lock(), List.of());
                Optional<SectionRecord> next = nextAfter(ofLock, candidates);
                if (!ofLock.recovered()) {
                    unrecovered++;
                    problems.accept(ofLock + ": the lock was not granted again");
                } else if (fault.kind() != FaultEvent.Kind.OUTAGE && next.isEmpty()) {
                    unrecovered++;
                    problems.accept(ofLock + ": no other process ran a section of the lock afterwards");
                } else {
                    // Two observers of the same grant, each late in its own way: the harness's poll (queued
                    // behind a busy MongoDB) and the next section's recorded start. The earlier bounds it.
                    long seen = next.map(section -> Math.min(section.start(), ofLock.recoveredAt())).orElse(ofLock.recoveredAt());
                    long watched = watchedFrom(ofLock, seen, sectionsByLock.getOrDefault(ofLock.lock(), List.of()),
                            failuresByLock.getOrDefault(ofLock.lock(), List.of()));
                    max = Math.max(max, seen - ofLock.recoveryFrom());
                    maxFromWatch = Math.max(maxFromWatch, seen - watched);
                    victim.lastGrant = Math.max(victim.lastGrant, seen);
                    victim.firstWatch = Math.min(victim.firstWatch, watched);
                }
            }
            if (fault.kind() == FaultEvent.Kind.KILL) {
                kills = add(kills, fault, victim);
            } else if (fault.kind() == FaultEvent.Kind.PAUSE) {
                pauses = add(pauses, fault, victim);
            }
        }
        return new Recovery(max, maxFromWatch, unrecovered, kills, pauses);
    }

    private static CheckReport.VictimFigures add(CheckReport.VictimFigures figures, FaultEvent fault, Victim victim) {
        boolean granted = victim.lastGrant != Long.MIN_VALUE;
        return new CheckReport.VictimFigures(figures.victims() + 1,
                figures.victims() == 0 ? fault.locksHeld() : Math.min(figures.minLocksHeld(), fault.locksHeld()),
                Math.max(figures.maxLocksHeld(), fault.locksHeld()), figures.locksHeld() + fault.locksHeld(),
                granted ? Math.max(figures.maxLastGrantNanos(), victim.lastGrant - fault.at()) : figures.maxLastGrantNanos(),
                granted ? Math.max(figures.maxLastGrantFromWatchNanos(), victim.lastGrant - victim.firstWatch)
                        : figures.maxLastGrantFromWatchNanos(),
                figures.grantsNeverReceived() + victim.grantsNeverReceived);
    }

    /**
     * Whether the grant a paused victim held by the lock document never reached a caller of the victim: no section
     * of it has that token, and one of its acquires on that lock was under way at the pause and then failed.
     * - its answer was lost on a cut or stalled connection: the acquire threw LockStoreException and the
     *   orphan was abandoned;
     * - its answer came after the victim's confirmed lease (the SIGSTOP froze it with the request on the wire): the
     *   grant was freed and the acquire failed;
     * - it was a hand-over, made by a release the pause froze mid-call: its answer came after the store timeout, so
     *   it was cleaned up, and the waiter it was meant for timed out (a waiter whose ticket was granted always
     *   returns the hold, even past its deadline).
     *
     * @param ofLock   the sections of the pause's lock
     * @param failures the failed acquires of the pause's lock
     */
    static boolean grantNeverReceived(FaultEvent pause, List<SectionRecord> ofLock, List<AcquireFailure> failures) {
        boolean received = ofLock.stream().anyMatch(s -> s.token() == pause.token() && s.lock().equals(pause.lock()));
        return !received && failures.stream().anyMatch(f -> f.process().equals(pause.process())
                && f.lock().equals(pause.lock()) && (f.kind().equals("STORE") || f.kind().equals("TIMEOUT"))
                && f.askedAt() < pause.at() && f.failedAt() >= pause.at());
    }

    /**
     * Where recovery from the watch counts from: the later of the fault and the start of the earliest
     * acquire call of another process on the victim's lock still under way at the fault or begun after
     * it, before the grant was seen. An outage counts from MongoDB's return, as its recovery does.
     *
     * @param sections the sections of the fault's lock
     * @param failures the failed acquires of the fault's lock
     */
    private static long watchedFrom(FaultEvent fault, long grantSeen, List<SectionRecord> sections,
                                    List<AcquireFailure> failures) {
        if (fault.kind() == FaultEvent.Kind.OUTAGE) {
            return fault.recoveryFrom();
        }
        long earliest = Long.MAX_VALUE;
        for (SectionRecord section : sections) {
            // A granted call ends when acquire returned, which is the section's start.
            if (waitedFor(fault, section.process(), section.lock(), section.askedAt(), section.start(), grantSeen)) {
                earliest = Math.min(earliest, section.askedAt());
            }
        }
        for (AcquireFailure failure : failures) {
            if (waitedFor(fault, failure.process(), failure.lock(), failure.askedAt(), failure.failedAt(), grantSeen)) {
                earliest = Math.min(earliest, failure.askedAt());
            }
        }
        return earliest == Long.MAX_VALUE ? fault.at() : Math.max(fault.at(), earliest);
    }

    private static boolean waitedFor(FaultEvent fault, String process, String lock, long askedAt, long returnedAt,
                                     long grantSeen) {
        return lock.equals(fault.lock()) && !process.equals(fault.process()) && askedAt - grantSeen <= 0
                && returnedAt - fault.at() >= 0;
    }

    /** The first section after the fault: of the victim's lock in another process, or of any lock after an outage. */
    private static Optional<SectionRecord> nextAfter(FaultEvent fault, List<SectionRecord> sections) {
        return sections.stream()
                .filter(s -> fault.kind() == FaultEvent.Kind.OUTAGE ? s.start() > fault.until()
                        : s.lock().equals(fault.lock()) && !s.process().equals(fault.process()) && s.start() > fault.at())
                .min(Comparator.comparingLong(SectionRecord::start));
    }
}
