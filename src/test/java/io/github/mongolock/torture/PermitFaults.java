package io.github.mongolock.torture;

import static com.mongodb.client.model.Filters.exists;

import com.mongodb.client.MongoCollection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.bson.Document;

/**
 * Kills and pauses holders of permits, as {@link FaultInjector} does holders of locks: picks a holder entry of a
 * semaphore document (read directly, not through the proxy), {@code SIGSTOP}s its process, confirms 50 ms later
 * (requests on the wire landed) that the entry is still there, then {@code kill -9} (and a replacement) or
 * {@code SIGCONT} after the pause; meanwhile it polls the document every 5 ms until the entry is gone, taken back
 * by a waiter. Records each as a {@link PermitFault}.
 */
final class PermitFaults {

    private static final Duration POLL = Duration.ofMillis(5);

    private record Victim(WorkerProcess process, String semaphore, String owner, int permits, long stoppedAt,
                          long signalled) {
    }

    private final MongoCollection<Document> locks;
    private final WorkerFleet fleet;
    private final Duration recoveryTimeout;
    private final Random random;
    private final List<PermitFault> faults = Collections.synchronizedList(new ArrayList<>());

    PermitFaults(MongoCollection<Document> locks, WorkerFleet fleet, Duration recoveryTimeout, long seed) {
        this.locks = locks;
        this.fleet = fleet;
        this.recoveryTimeout = recoveryTimeout;
        this.random = new Random(seed);
    }

    List<PermitFault> faults() {
        return List.copyOf(faults);
    }

    /**
     * {@code kill -9} of a holder of permits, the watch until its entry is taken back (or the timeout), then a
     * replacement: started after the watch, since a JVM's start takes both of this machine's cores for a second or two,
     * and the regrant measured is the protocol's (on a real deployment the replacement starts on another machine).
     */
    boolean killHolder() {
        Optional<Victim> victim = stopHolder();
        if (victim.isEmpty()) {
            return false;
        }
        Victim v = victim.get();
        v.process().kill();
        long reclaimed = awaitGone(v, v.stoppedAt() + recoveryTimeout.toNanos());
        fleet.replace(v.process());
        faults.add(new PermitFault(FaultEvent.Kind.KILL, v.process().name(), v.semaphore(), v.owner(), v.permits(),
                v.stoppedAt(), v.signalled(), v.process().deathNanos(), reclaimed));
        return true;
    }

    /** {@code SIGSTOP} of a holder of permits for {@code pause}, watching its entry meanwhile, then {@code SIGCONT}. */
    boolean pauseHolder(Duration pause) {
        Optional<Victim> victim = stopHolder();
        if (victim.isEmpty()) {
            return false;
        }
        Victim v = victim.get();
        long resumeAt = v.stoppedAt() + pause.toNanos();
        long reclaimed = awaitGone(v, resumeAt);
        FaultInjector.sleepUntil(resumeAt);
        v.process().resume();
        faults.add(new PermitFault(FaultEvent.Kind.PAUSE, v.process().name(), v.semaphore(), v.owner(), v.permits(),
                v.stoppedAt(), v.signalled(), System.nanoTime(), reclaimed));
        return true;
    }

    private Optional<Victim> stopHolder() {
        for (int attempt = 0; attempt < 200; attempt++) {
            List<Document[]> entries = new ArrayList<>();
            for (Document semaphore : locks.find(exists("holders"))) {
                for (Document entry : semaphore.getList("holders", Document.class, List.of())) {
                    entries.add(new Document[] {semaphore, entry});
                }
            }
            if (!entries.isEmpty()) {
                Document[] picked = entries.get(random.nextInt(entries.size()));
                String name = ((Document) picked[0].get("_id")).getString("name");
                String owner = picked[1].getString("owner");
                Optional<WorkerProcess> process = owner == null ? Optional.empty() : fleet.owning(owner);
                if (process.isPresent()) {
                    long stoppedAt = System.nanoTime();
                    process.get().stop();
                    long signalled = System.nanoTime();
                    FaultInjector.sleepUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50));
                    if (holds(name, owner)) {
                        return Optional.of(new Victim(process.get(), name, owner, picked[1].getInteger("permits", 0),
                                stoppedAt, signalled));
                    }
                    process.get().resume();
                }
            }
            FaultInjector.sleepUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10 + random.nextInt(20)));
        }
        return Optional.empty();
    }

    /** Whether the document of semaphore {@code name} still has an entry of {@code owner}. */
    private boolean holds(String name, String owner) {
        for (Document semaphore : locks.find(exists("holders"))) {
            if (name.equals(((Document) semaphore.get("_id")).getString("name"))) {
                return semaphore.getList("holders", Document.class, List.of()).stream()
                        .anyMatch(entry -> owner.equals(entry.getString("owner")));
            }
        }
        return false;
    }

    /** Polls until the victim's entry is gone; when it was first seen gone, or {@link FaultEvent#UNRECOVERED} at the deadline. */
    private long awaitGone(Victim v, long deadline) {
        while (deadline - System.nanoTime() > 0) {
            if (!holds(v.semaphore(), v.owner())) {
                return System.nanoTime();
            }
            FaultInjector.sleepUntil(System.nanoTime() + POLL.toNanos());
        }
        return FaultEvent.UNRECOVERED;
    }
}
