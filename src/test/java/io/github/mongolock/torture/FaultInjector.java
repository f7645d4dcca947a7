package io.github.mongolock.torture;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gt;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Projections.include;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Field;
import io.github.mongolock.testing.SteppedClockStandIn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.bson.Document;

/**
 * Injects the faults of the torture test (kills, pauses, network faults, steps of the database's
 * clock) and records each as a {@link FaultEvent}. Victims are
 * chosen among current lock holders as the lock collection shows them (read directly, not through
 * the proxy), and confirmed after a SIGSTOP so that the fault really hits a holder. Where a victim
 * must hold many locks ({@link Scenario#MANY_LOCKS}), it is a process holding at least that many under a
 * live session, and every lock it holds once stopped is recorded and watched until granted again.
 */
final class FaultInjector {

    /** A holder confirmed while its process is stopped, with the tokens of the locks it holds, in lock order. */
    private record Victim(WorkerProcess process, Map<String, Long> tokens, long stoppedAt, long signalled) {
    }

    private final MongoCollection<Document> locks;
    private final WorkerFleet fleet;
    private final TcpProxy proxy;
    private final Random random;
    private static final Duration POLL = Duration.ofMillis(5);
    /**
     * How often the harness reads the lock collection while it looks for a victim of many locks (in its hold,
     * which lasts half a lease or so): each read returns hundreds of documents from a stand-in the workers are
     * busy with.
     */
    private static final Duration MANY_LOCKS_POLL = Duration.ofMillis(100);
    /** How often it reads a victim's many locks until each is granted again: the next section's recorded start sees each grant precisely anyway. */
    private static final Duration MANY_GRANTS_POLL = Duration.ofMillis(250);

    private final List<String> lockNames;
    private final Map<String, Integer> lockOrder = new HashMap<>();
    private final Duration recoveryTimeout;
    private final int minLocksPerVictim;
    private final List<FaultEvent> events = Collections.synchronizedList(new ArrayList<>());
    /** Processes stopped by a fault under way: a fault injected at the same time from another thread picks another. */
    private final Set<WorkerProcess> stopped = ConcurrentHashMap.newKeySet();
    private final List<NetworkFault> networkFaults = Collections.synchronizedList(new ArrayList<>());
    /** The clock step in force, recorded once the next one is written: {offset ms, written, surely followed}. */
    private long[] clockStep;
    private long previousOffsetMillis;

    /**
     * @param recoveryTimeout   how long after a fault the harness waits to see its lock granted again
     *                          before calling the fault unrecovered
     * @param minLocksPerVictim 1: a kill or pause stops the holder of a lock, and records that lock; more: it
     *                          stops a process holding at least this many locks, and records them all
     * @param proxy             the TCP proxy the workers connect through; null where they connect through the
     *                          replica-set fault layer (no connection cut or outage then)
     */
    FaultInjector(MongoCollection<Document> locks, List<String> lockNames, WorkerFleet fleet, TcpProxy proxy,
                  Duration recoveryTimeout, int minLocksPerVictim, long seed) {
        this.locks = locks;
        this.lockNames = List.copyOf(lockNames);
        for (int i = 0; i < lockNames.size(); i++) {
            lockOrder.put(lockNames.get(i), i);
        }
        this.recoveryTimeout = recoveryTimeout;
        this.minLocksPerVictim = minLocksPerVictim;
        this.fleet = fleet;
        this.proxy = proxy;
        this.random = new Random(seed);
    }

    List<FaultEvent> events() {
        return List.copyOf(events);
    }

    /** Connections reset or stalled by {@link #cutConnections}. */
    int networkFaults() {
        return networkFaults.size();
    }

    /** Those resets and stalls, for the timeline. */
    List<NetworkFault> networkFaultEvents() {
        return List.copyOf(networkFaults);
    }

    /**
     * {@code kill -9} of a process inside a critical section (stopped first, so it is caught holding);
     * once another process was granted each of its locks (or the recovery timeout passed), a replacement.
     * Started after, not during, the recovery: a JVM's start takes both of this machine's cores for a second or
     * two, and the recovery measured is the protocol's (a real deployment's replacement starts elsewhere).
     */
    boolean killHolder() {
        Optional<Victim> victim = stopHolder();
        if (victim.isEmpty()) {
            return false;
        }
        Victim v = victim.get();
        v.process().kill();
        Map<String, Long> granted = awaitGrants(v.tokens(), v.stoppedAt() + recoveryTimeout.toNanos());
        fleet.replace(v.process());
        events.add(event(FaultEvent.Kind.KILL, v, granted, v.process().deathNanos()));
        stopped.remove(v.process());
        return true;
    }

    /** SIGSTOP of a holder for {@code pause}, watching for another process to be granted its locks meanwhile, then SIGCONT. */
    boolean pauseHolder(Duration pause) {
        Optional<Victim> victim = stopHolder();
        if (victim.isEmpty()) {
            return false;
        }
        Victim v = victim.get();
        long resumeAt = v.stoppedAt() + pause.toNanos();
        Map<String, Long> granted = new HashMap<>(awaitGrants(v.tokens(), resumeAt));
        sleepUntil(resumeAt);
        v.process().resume();
        long resumed = System.nanoTime();
        if (granted.size() < v.tokens().size()) {
            // Nobody took some over while the holder was stopped (their waiters came late): the grant that
            // ends the fault may come after the SIGCONT, by a takeover or after the holder's own release.
            Map<String, Long> rest = new LinkedHashMap<>(v.tokens());
            rest.keySet().removeAll(granted.keySet());
            granted.putAll(awaitGrants(rest, v.stoppedAt() + recoveryTimeout.toNanos()));
        }
        // One lock: the pause lasts until its late grant, if any, was seen (the rules judge a takeover after the
        // SIGCONT as part of it). Many: until the SIGCONT; their grants go on for seconds after it.
        events.add(event(FaultEvent.Kind.PAUSE, v, granted, v.tokens().size() > 1 ? resumed : System.nanoTime()));
        stopped.remove(v.process());
        return true;
    }

    private static FaultEvent event(FaultEvent.Kind kind, Victim v, Map<String, Long> granted, long until) {
        List<FaultEvent.HeldLock> held = new ArrayList<>();
        v.tokens().forEach((lock, token) -> held.add(new FaultEvent.HeldLock(lock, token,
                granted.getOrDefault(lock, FaultEvent.UNRECOVERED))));
        return FaultEvent.ofVictim(kind, v.process().name(), held, v.stoppedAt(), v.signalled(), until);
    }

    /** MongoDB unreachable: the proxy resets every connection, old and new, for {@code length}; returns once a lock is granted again. */
    void outage(Duration length) {
        requireProxy();
        long at = System.nanoTime();
        proxy.refuse(true);
        Map<String, Long> tokens;
        long until;
        try {
            sleepUntil(at + length.toNanos());
            tokens = tokens();
        } finally {
            proxy.refuse(false);
            until = System.nanoTime();
        }
        long recoveredAt = awaitGrant(lockNames, tokens, until + recoveryTimeout.toNanos());
        events.add(new FaultEvent(FaultEvent.Kind.OUTAGE, "", "", 0, at, at, until, recoveredAt));
    }

    /**
     * Until {@code untilNanos}: every 50-300 ms resets a random connection or stalls one for
     * 50 ms up to {@code maxStall}.
     */
    void cutConnections(long untilNanos, Duration maxStall) {
        requireProxy();
        while (untilNanos - System.nanoTime() > 0) {
            sleepUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50 + random.nextInt(250)));
            long at = System.nanoTime();
            if (random.nextBoolean()) {
                if (proxy.cutRandom(random)) {
                    networkFaults.add(new NetworkFault(NetworkFault.Kind.CUT, at, at));
                }
            } else {
                Duration stall = Duration.ofMillis(50 + random.nextInt((int) maxStall.toMillis()));
                if (proxy.stallRandom(random, stall)) {
                    networkFaults.add(new NetworkFault(NetworkFault.Kind.STALL, at, at + stall.toNanos()));
                }
            }
        }
    }

    private void requireProxy() {
        if (proxy == null) {
            throw new IllegalStateException("this scenario runs no TCP proxy: its connections cannot be cut");
        }
    }

    /**
     * Sets the database clock's offset from the real time to {@code offset} and returns once the
     * database has applied it ({@link SteppedClockStandIn#setOffset}): the new step counts as in force
     * from then. The step in force before is recorded now, as a {@link FaultEvent.Kind#CLOCK_STEP}
     * lasting until this call began.
     */
    void stepServerClock(SteppedClockStandIn standIn, Duration offset) {
        long written = System.nanoTime();
        try {
            standIn.setOffset(offset);
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot step the database's clock", failed);
        }
        endClockStep(written);
        clockStep = new long[] {offset.toMillis(), written, System.nanoTime()};
    }

    /**
     * Reads the database's {@code $$NOW} until it shows the clock step in force (within half the distance
     * to the offset before, at most a second), or until {@code deadline}: the step seen end to end, through
     * the protocol's own clock. The step's {@code signalled} stays the earlier time the database confirmed
     * the offset.
     *
     * @return whether the database's clock was seen at the new offset
     */
    boolean awaitClockFollows(long deadline) {
        if (clockStep == null) {
            return false;
        }
        long offsetMillis = clockStep[0];
        long tolerance = Math.min(1_000, Math.max(100, Math.abs(offsetMillis - previousOffsetMillis) / 2));
        while (deadline - System.nanoTime() > 0) {
            long before = System.currentTimeMillis();
            Document now = locks.aggregate(List.of(Aggregates.limit(1),
                    Aggregates.addFields(new Field<>("serverNow", "$$NOW")))).first();
            long after = System.currentTimeMillis();
            if (now == null) {
                break; // no lock document yet to read the time with
            }
            long serverNow = now.getDate("serverNow").getTime();
            if (serverNow - offsetMillis >= before - tolerance && serverNow - offsetMillis <= after + tolerance) {
                return true;
            }
            sleepUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50));
        }
        return false;
    }

    /**
     * Waits until some lock has been held under one lease (same owner and lease id) for at least
     * {@code heldFor}, as the lock collection shows it, so that a clock step written next meets a live
     * holder in the middle of a long hold; gives up at {@code deadline}.
     *
     * @return whether such a holder was seen
     */
    boolean awaitSteadyHolder(Duration heldFor, long deadline) {
        Map<String, String> leases = new HashMap<>();
        Map<String, Long> since = new HashMap<>();
        while (deadline - System.nanoTime() > 0) {
            long now = System.nanoTime();
            for (Document lock : locks.find(in("_id", lockNames))) {
                String name = lock.getString("_id");
                String lease = lock.getInteger("holds", 0) > 0 ? lock.getString("owner") + "/" + lock.getString("leaseId") : null;
                if (lease == null || !lease.equals(leases.get(name))) {
                    leases.put(name, lease);
                    since.put(name, now);
                } else if (now - since.get(name) >= heldFor.toNanos()) {
                    return true;
                }
            }
            sleepUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20));
        }
        return false;
    }

    /** Records the clock step in force, if any, as over; the caller has set the clock back to the real time. */
    void endClockSteps() {
        endClockStep(System.nanoTime());
    }

    private void endClockStep(long until) {
        if (clockStep != null) {
            previousOffsetMillis = clockStep[0];
            events.add(FaultEvent.clockStep(clockStep[0], clockStep[1], clockStep[2], Math.max(until, clockStep[2])));
            clockStep = null;
        }
    }

    /**
     * Polls the lock documents until each of {@code tokens}' locks shows a larger token (a fresh grant;
     * the grantee may have released again between two polls) or the deadline passes.
     *
     * @return when each grant was first seen, for the locks seen granted again
     */
    private Map<String, Long> awaitGrants(Map<String, Long> tokens, long deadline) {
        Map<String, Long> granted = new HashMap<>();
        while (granted.size() < tokens.size() && deadline - System.nanoTime() > 0) {
            List<String> waiting = tokens.keySet().stream().filter(name -> !granted.containsKey(name)).toList();
            for (Document lock : locks.find(in("_id", waiting))) {
                String name = lock.getString("_id");
                if (token(lock) > tokens.get(name)) {
                    granted.put(name, System.nanoTime());
                }
            }
            if (granted.size() < tokens.size()) {
                sleepUntil(System.nanoTime() + (tokens.size() > 1 ? MANY_GRANTS_POLL : POLL).toNanos());
            }
        }
        return granted;
    }

    /**
     * Polls the lock documents until one of {@code names} shows a token above {@code tokens}' (a fresh
     * grant; the grantee may have released again between two polls) or the deadline passes.
     *
     * @return when the grant was first seen, or {@link FaultEvent#UNRECOVERED}
     */
    private long awaitGrant(List<String> names, Map<String, Long> tokens, long deadline) {
        while (deadline - System.nanoTime() > 0) {
            for (Document lock : locks.find(in("_id", names))) {
                if (token(lock) > tokens.getOrDefault(lock.getString("_id"), 0L)) {
                    return System.nanoTime();
                }
            }
            sleepUntil(System.nanoTime() + POLL.toNanos());
        }
        return FaultEvent.UNRECOVERED;
    }

    private Map<String, Long> tokens() {
        Map<String, Long> tokens = new HashMap<>();
        for (Document lock : locks.find(in("_id", lockNames))) {
            tokens.put(lock.getString("_id"), token(lock));
        }
        return tokens;
    }

    private Optional<Victim> stopHolder() {
        return minLocksPerVictim > 1 ? stopManyLockHolder() : stopOneLockHolder();
    }

    private Optional<Victim> stopOneLockHolder() {
        for (int attempt = 0; attempt < 200; attempt++) {
            List<Document> held = locks.find(gt("holds", 0)).into(new ArrayList<>());
            if (!held.isEmpty()) {
                Document lock = held.get(random.nextInt(held.size()));
                String owner = lock.getString("owner");
                Optional<WorkerProcess> process = owner == null ? Optional.empty() : fleet.owning(owner);
                if (process.isPresent()) {
                    long stoppedAt = System.nanoTime();
                    process.get().stop();
                    long signalled = System.nanoTime();
                    // Let requests already on the wire land before judging whether it still holds.
                    sleepUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50));
                    Document now = locks.find(eq("_id", lock.getString("_id"))).first();
                    if (now != null && owner.equals(now.getString("owner")) && now.getInteger("holds", 0) > 0
                            && token(now) == token(lock)) {
                        return Optional.of(new Victim(process.get(), Map.of(lock.getString("_id"), token(now)), stoppedAt,
                                signalled));
                    }
                    process.get().resume();
                }
            }
            sleepUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10 + random.nextInt(20)));
        }
        return Optional.empty();
    }

    /**
     * Stops a process that holds at least {@link #minLocksPerVictim} locks under a live session, and confirms
     * 50 ms later (requests on the wire landed) that it still holds that many: the victim's locks are the ones
     * it holds then.
     */
    private Optional<Victim> stopManyLockHolder() {
        for (int attempt = 0; attempt < 200; attempt++) {
            Map<WorkerProcess, Map<String, Long>> holders = heldUnderLiveSessions();
            // Not one another fault has stopped: it still shows its whole batch held.
            List<WorkerProcess> candidates = holders.entrySet().stream()
                    .filter(held -> held.getValue().size() >= minLocksPerVictim && !stopped.contains(held.getKey()))
                    .map(Map.Entry::getKey).toList();
            WorkerProcess process = candidates.isEmpty() ? null : candidates.get(random.nextInt(candidates.size()));
            if (process != null && stopped.add(process)) {
                long stoppedAt = System.nanoTime();
                process.stop();
                long signalled = System.nanoTime();
                sleepUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50));
                Map<String, Long> held = heldUnderLiveSessions().getOrDefault(process, Map.of());
                if (held.size() >= minLocksPerVictim) {
                    return Optional.of(new Victim(process, held, stoppedAt, signalled));
                }
                process.resume();
                stopped.remove(process);
            }
            sleepUntil(System.nanoTime() + MANY_LOCKS_POLL.toNanos() + TimeUnit.MILLISECONDS.toNanos(random.nextInt(50)));
        }
        return Optional.empty();
    }

    /**
     * The locks each live worker process holds, as the lock collection shows them, with their tokens in lock
     * order: those under a session still live (a paused holder's locks that nobody took stay in the collection
     * under its ended session until taken, and are not held).
     */
    private Map<WorkerProcess, Map<String, Long>> heldUnderLiveSessions() {
        Set<String> live = new HashSet<>();
        for (Document session : locks.find(eq("state", "live")).projection(include("_id"))) {
            if (session.get("_id") instanceof Document id) {
                live.add(id.getString("id"));
            }
        }
        Map<WorkerProcess, Map<String, Long>> held = new HashMap<>();
        List<Document> documents = locks.find(gt("holds", 0)).projection(include("owner", "session", "token"))
                .into(new ArrayList<>());
        documents.sort(Comparator.comparingInt(lock -> lockOrder.getOrDefault(lock.getString("_id"), Integer.MAX_VALUE)));
        for (Document lock : documents) {
            String owner = lock.getString("owner");
            if (owner != null && live.contains(lock.getString("session"))) {
                fleet.owning(owner).ifPresent(process -> held.computeIfAbsent(process, p -> new LinkedHashMap<>())
                        .put(lock.getString("_id"), token(lock)));
            }
        }
        return held;
    }

    private static long token(Document lock) {
        return ((Number) lock.get("token")).longValue();
    }

    static void sleepUntil(long nanos) {
        long left;
        while ((left = nanos - System.nanoTime()) > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(left);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("fault injection interrupted", interrupted);
            }
        }
    }
}
