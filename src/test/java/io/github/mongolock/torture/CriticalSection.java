package io.github.mongolock.torture;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.set;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import io.github.mongolock.FencedWriteRejectedException;
import io.github.mongolock.LockException;
import io.github.mongolock.LockLostException;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.mongo.FencedCollection;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.bson.Document;

/**
 * The critical section every workload runs under a lock, and its record: a non-atomic
 * read-modify-write of the lock's counter document in two flavours. The <em>fenced</em> one goes
 * through {@link FencedCollection} (fence field {@value #FENCE}): its read registers this token with
 * the counter and is refused when a later token already has, and its write is refused once a later
 * token has touched the counter, so a holder whose lease was taken over cannot overwrite a later
 * holder's work; the <em>plain</em> one trusts the lock and {@code isHeld()} alone.
 *
 * <p>{@link #begin} records the start (before any work) on the thread that acquired the lock;
 * {@link #finish} does the work, closes the session and records the end, on whatever thread the
 * hold was handed to. Thread-safe.
 */
final class CriticalSection {

    static final int LONG_WORK_MIN_MICROS = 100_000;
    static final int LONG_WORK_MAX_MICROS = 300_000;

    /** The counter document's fence field, as {@link ScenarioRun} creates it and reads it back. */
    static final String FENCE = "fence";

    private final WorkerSettings settings;
    private final HistoryWriter history;
    private final MongoCollection<Document> counters;
    private final FencedCollection<Document> fencedCounters;
    private final Set<String> lostTokens;
    private final Predicate<String> ownerRetired;
    private final int longWorkOneIn;
    private final int longWorkMinMicros;
    private final int longWorkMaxMicros;

    /**
     * @param lostTokens    {@code lock#token} of every LEASE_LOST the worker's listener heard
     * @param ownerRetired  whether the lock manager that wrote this owner was closed: its holds end
     *                      without a LEASE_LOST, so there is no event to wait for
     * @param longWorkOneIn one section in this many works {@value #LONG_WORK_MIN_MICROS}-{@value #LONG_WORK_MAX_MICROS}
     *                      microseconds instead of the settings' work time, so that a manager's close can
     *                      land inside it and return before it ends; 0 for never
     */
    CriticalSection(WorkerSettings settings, HistoryWriter history, MongoCollection<Document> counters,
                    Set<String> lostTokens, Predicate<String> ownerRetired, int longWorkOneIn) {
        this(settings, history, counters, lostTokens, ownerRetired, longWorkOneIn, LONG_WORK_MIN_MICROS,
                LONG_WORK_MAX_MICROS);
    }

    /** As above, one section in {@code longWorkOneIn} working {@code longWorkMinMicros}-{@code longWorkMaxMicros} microseconds. */
    CriticalSection(WorkerSettings settings, HistoryWriter history, MongoCollection<Document> counters,
                    Set<String> lostTokens, Predicate<String> ownerRetired, int longWorkOneIn, int longWorkMinMicros,
                    int longWorkMaxMicros) {
        this.longWorkMinMicros = longWorkMinMicros;
        this.longWorkMaxMicros = longWorkMaxMicros;
        this.settings = settings;
        this.history = history;
        this.counters = counters;
        this.fencedCounters = FencedCollection.of(counters, FENCE);
        this.lostTokens = lostTokens;
        this.ownerRetired = ownerRetired;
        this.longWorkOneIn = longWorkOneIn;
    }


    /**
     * Records the section's start, before its work; returns the start time.
     *
     * @param askedAt when the acquire call that granted the session began
     */
    long begin(LockSession session, long askedAt) {
        long start = System.nanoTime();
        history.started(session.name(), session.fencingToken(), session.owner(), start, askedAt);
        return start;
    }

    /** Works on the counter, closes the session, records the section. */
    void finish(LockSession session, long start) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String lock = session.name();
        long token = session.fencingToken();
        String owner = session.owner();
        SectionRecord.WriteOutcome write;
        SectionRecord.WriteOutcome plainWrite = SectionRecord.WriteOutcome.NONE;
        try {
            // The read registers this token with the counter: from now on no earlier token can write.
            Document before;
            boolean staleRead = false;
            try {
                before = fencedCounters.findOneAndUpdate(session, eq("_id", lock), new Document());
            } catch (FencedWriteRejectedException laterTokenRead) {
                // A later holder has read the counter already; the plain counter still wants its value.
                staleRead = true;
                before = counters.find(eq("_id", lock)).first();
            }
            pause(longWorkOneIn > 0 && random.nextInt(longWorkOneIn) == 0
                    ? random.nextInt(longWorkMinMicros, longWorkMaxMicros + 1)
                    : random.nextInt(settings.workMinMicros(), settings.workMaxMicros() + 1));
            if (staleRead) {
                write = SectionRecord.WriteOutcome.STALE_READ;
            } else if (!isHeld(session)) {
                write = SectionRecord.WriteOutcome.SKIPPED;
            } else {
                write = fencedWrite(session, before.getLong("value") + 1);
            }
            if (isHeld(session)) {
                counters.updateOne(eq("_id", lock),
                        combine(set("plain", before.getLong("plain") + 1), inc("plainWrites", 1L)));
                plainWrite = SectionRecord.WriteOutcome.ACCEPTED;
            } else {
                plainWrite = SectionRecord.WriteOutcome.SKIPPED;
            }
        } catch (MongoException failed) {
            write = SectionRecord.WriteOutcome.FAILED;
            if (plainWrite == SectionRecord.WriteOutcome.NONE) {
                plainWrite = SectionRecord.WriteOutcome.FAILED;
            }
        }
        long end = System.nanoTime();
        boolean heldAtEnd = isHeld(session);
        history.workDone(lock, token, end, write, plainWrite, heldAtEnd);
        SectionRecord.CloseOutcome close;
        try {
            session.close();
            close = SectionRecord.CloseOutcome.OK;
        } catch (LockLostException lost) {
            close = SectionRecord.CloseOutcome.LOST;
        } catch (LockStoreException storeDown) {
            close = SectionRecord.CloseOutcome.STORE;
        } catch (LockException other) {
            close = SectionRecord.CloseOutcome.OTHER;
        } catch (RuntimeException foreign) {
            history.foreignException("close", foreign);
            close = SectionRecord.CloseOutcome.OTHER;
        }
        boolean listenerLost = lostTokens.contains(lock + "#" + token);
        if (!listenerLost && (close == SectionRecord.CloseOutcome.LOST || !heldAtEnd) && !ownerRetired.test(owner)) {
            // The renewal thread may have marked the loss and not yet called the listener.
            long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            while (!(listenerLost = lostTokens.contains(lock + "#" + token)) && giveUp - System.nanoTime() > 0) {
                pause(5_000);
            }
        }
        history.ended(new SectionRecord(settings.process(), lock, token, owner, start, end, false, write, plainWrite,
                heldAtEnd, close, listenerLost));
    }

    /** The fenced counter's write: ACCEPTED, or FENCED when a later token has read or written the counter since our read. */
    private SectionRecord.WriteOutcome fencedWrite(LockSession session, long value) {
        try {
            long matched = fencedCounters.updateOne(session, eq("_id", session.name()),
                    combine(set("value", value), inc("writes", 1L))).getMatchedCount();
            if (matched == 1) {
                return SectionRecord.WriteOutcome.ACCEPTED;
            }
            // The counter is never deleted: "no match" would be FencedCollection's mistake, which the checker must see.
            history.foreignException("fenced counter write", new IllegalStateException(
                    "the fenced write to counter " + session.name() + " matched nothing and was not refused"));
            return SectionRecord.WriteOutcome.FAILED;
        } catch (FencedWriteRejectedException refused) {
            return SectionRecord.WriteOutcome.FENCED;
        }
    }

    /** {@code isHeld()}; anything but a boolean is recorded as a foreign exception and read as not held. */
    private boolean isHeld(LockSession session) {
        try {
            return session.isHeld();
        } catch (RuntimeException foreign) {
            history.foreignException("isHeld", foreign);
            return false;
        }
    }

    static void pause(long micros) {
        try {
            TimeUnit.MICROSECONDS.sleep(micros);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
