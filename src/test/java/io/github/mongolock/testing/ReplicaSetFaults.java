package io.github.mongolock.testing;

import com.mongodb.ConnectionString;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * A wire-level proxy on 127.0.0.1 in front of any MongoDB (the stand-in, FerretDB, a real server) that injects
 * what a replica set can do and a single linearizable server never does (docs/torture.md, "The replica-set fault
 * layer"). Clients connect to {@link #uri()}, in this JVM or any other, unchanged; the layer reads each
 * {@code OP_MSG} and, as armed:
 * <ul>
 * <li><b>stale reads after an election</b> ({@link #elect}, {@link #armElection}): for a window, the reads it
 * covers ({@link StaleWindow.Staleness}) are answered from a {@link ReplicaSnapshot} taken earlier: the command is
 * sent to the snapshot's copy of the collection, so a document changed since reads as it was, and one inserted
 * since reads as not found. Writes always apply to the current data, as on a real new primary;</li>
 * <li><b>lost replies</b> ({@link #loseReply}): the command is applied, its answer dropped and the connection
 * reset, so the client sees a network error: outcome unknown;</li>
 * <li><b>replayed writes</b> ({@link #replay}): a write MongoDB would apply twice (one with no transaction number,
 * e.g. {@code updateMany}, or any write with retryable writes off) is sent twice, as a caller's own retry after a
 * lost answer does; the client gets the second answer;</li>
 * <li><b>rollback</b>: a write whose answer was lost is captured (pre-image before, post-image after, while every
 * other write is held) and undone at the next election unless a write answered after it covers it, as in a
 * replica set's oplog ({@link RollbackLog}): {@link #loseReplyThenElect} rolls it back for sure. A write whose
 * answer was delivered is never rolled back.</li>
 * </ul>
 * Its own client reaches MongoDB directly, to copy snapshots and capture images. The faults are one-shot
 * ({@link ArmedFault}), chosen by predicates on the command ({@link WireCommand}), so tests are deterministic.
 * Daemon threads only; stops by itself after {@link #MAX_LIFETIME}; thread-safe.
 */
public final class ReplicaSetFaults implements AutoCloseable {

    /** The layer closes itself this long after starting, whatever happens. */
    public static final Duration MAX_LIFETIME = Duration.ofMinutes(30);
    /** Stale reads kept for {@link #staleReads()}; the figures count them all. */
    private static final int KEPT_STALE_READS = 10_000;

    /** A read answered from a snapshot, and how many documents (or, for {@code count}, the count) it returned; -1 for an error. */
    public record StaleRead(WireCommand command, int returned, long atNanos) {
    }

    /**
     * What the layer did so far.
     *
     * @param staleReadsEmpty  stale reads that found nothing (a document inserted after the snapshot)
     * @param rolledBackWrites lost writes an election undid
     * @param keptWrites       lost writes an election kept: a write answered after them covered them
     * @param unchangedWrites  lost writes that changed no document (a compare-and-set that matched nothing)
     * @param retriesRunAgain  retries of rolled-back retryable writes sent without their transaction number
     */
    public record Figures(long requests, long elections, long staleReads, long staleReadsEmpty, long lostReplies,
                          long replays, long rolledBackWrites, long keptWrites, long unchangedWrites,
                          long retriesRunAgain) {
    }

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final MongoClient client;
    private final WriteGate gate = new WriteGate();
    private final RollbackLog rollbacks;
    private final List<ArmedFault> armed = new CopyOnWriteArrayList<>();
    private final Set<FaultLink> links = ConcurrentHashMap.newKeySet();
    private final List<StaleRead> staleReads = Collections.synchronizedList(new ArrayList<>());
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger snapshots = new AtomicInteger();
    /** Request ids of second copies: negative, where the driver's are positive. */
    private final AtomicInteger copyIds = new AtomicInteger();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong elections = new AtomicLong();
    private final AtomicLong staleCount = new AtomicLong();
    private final AtomicLong staleEmpty = new AtomicLong();
    private final AtomicLong lostReplies = new AtomicLong();
    private final AtomicLong replays = new AtomicLong();
    private final AtomicLong rolledBack = new AtomicLong();
    private final AtomicLong kept = new AtomicLong();
    private final AtomicLong unchanged = new AtomicLong();
    private final AtomicLong retriesRunAgain = new AtomicLong();
    /** The stale window of the last election, and until when it lasts (nanoTime). */
    private volatile StaleWindow window = StaleWindow.NONE;
    private volatile long windowUntil;
    private volatile boolean closed;

    private ReplicaSetFaults(ServerSocket server, InetSocketAddress target, MongoClient client) {
        this.server = server;
        this.target = target;
        this.client = client;
        this.rollbacks = new RollbackLog(client);
    }

    /** Starts the layer in front of the first host of {@code backendUri} (its own client uses the whole URI). */
    public static ReplicaSetFaults start(String backendUri) {
        ConnectionString backend = new ConnectionString(backendUri);
        String[] hostPort = backend.getHosts().get(0).split(":");
        InetSocketAddress target = new InetSocketAddress(hostPort[0], hostPort.length > 1 ? Integer.parseInt(hostPort[1]) : 27017);
        ServerSocket server;
        try {
            server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot start the replica-set fault layer", failed);
        }
        ReplicaSetFaults faults = new ReplicaSetFaults(server, target, MongoClients.create(backend));
        FaultLink.daemon(faults::acceptLoop, "replica-set-faults-accept");
        FaultLink.daemon(faults::closeAfterLifetime, "replica-set-faults-lifetime");
        return faults;
    }

    /** Where clients connect: the one server behind the layer, directly. */
    public String uri() {
        return "mongodb://127.0.0.1:" + port() + "/?directConnection=true";
    }

    public int port() {
        return server.getLocalPort();
    }

    /**
     * Copies {@code collections} of {@code database} as they are now, every write through the layer held meanwhile
     * (those already sent answered first), so the copy is one moment of the data.
     */
    public ReplicaSnapshot snapshot(String database, String... collections) {
        int number = snapshots.incrementAndGet();
        Map<String, List<BsonDocument>> copies = new LinkedHashMap<>();
        WriteGate.Freeze frozen = gate.freeze();
        try {
            long at = System.nanoTime();
            MongoDatabase db = client.getDatabase(database);
            for (String collection : collections) {
                List<BsonDocument> copy = db.getCollection(collection, BsonDocument.class).find().into(new ArrayList<>());
                String stale = collection + "__stale_" + number;
                db.getCollection(stale).drop();
                if (!copy.isEmpty()) {
                    db.getCollection(stale, BsonDocument.class).insertMany(copy);
                }
                copies.put(collection, copy);
            }
            return new ReplicaSnapshot(number, database, at, copies);
        } finally {
            frozen.close();
        }
    }

    /** An election now: the lost writes are rolled back, and {@code window} begins. */
    public void elect(StaleWindow window) {
        WriteGate.Freeze frozen = gate.freeze();
        try {
            electFrozen(window);
        } finally {
            frozen.close();
        }
    }

    /**
     * An election just before the first command {@code trigger} accepts is forwarded (that command and every one
     * after it see the rollback and the window). {@code trigger} runs on the layer's threads, once per command
     * until it accepts one; see {@link #nth} for "the k-th read from now".
     */
    public ArmedFault armElection(Predicate<WireCommand> trigger, StaleWindow window) {
        return arm(new ArmedFault(ArmedFault.Kind.ELECTION, trigger, window, this::fireNow));
    }

    /** The first command {@code which} accepts is applied, but its answer is lost; a write is rolled back at the next election. */
    public ArmedFault loseReply(Predicate<WireCommand> which) {
        return arm(new ArmedFault(ArmedFault.Kind.LOSE_REPLY, which, StaleWindow.NONE, null));
    }

    /** As {@link #loseReply}, with an election (no stale reads) right after the write: it is surely rolled back. */
    public ArmedFault loseReplyThenElect(Predicate<WireCommand> which) {
        return arm(new ArmedFault(ArmedFault.Kind.LOSE_REPLY_THEN_ELECT, which, StaleWindow.NONE, null));
    }

    /**
     * The first write {@code which} accepts that MongoDB would apply twice (no transaction number: a multi-document
     * update or delete, or retryable writes off) is applied twice; the client gets the second answer. Retryable
     * writes are passed over: a server recognises their retry and applies it once.
     */
    public ArmedFault replay(Predicate<WireCommand> which) {
        return arm(new ArmedFault(ArmedFault.Kind.REPLAY, which.and(c -> c.isWrite() && !c.retryable()), StaleWindow.NONE, null));
    }

    /** A predicate accepting the {@code k}-th command (1 = the next) that {@code which} accepts from now on. */
    public static Predicate<WireCommand> nth(int k, Predicate<WireCommand> which) {
        if (k < 1) {
            throw new IllegalArgumentException("k counts from 1: " + k);
        }
        AtomicInteger seen = new AtomicInteger();
        return command -> which.test(command) && seen.incrementAndGet() == k;
    }

    /** Whether a stale window is open now. */
    public boolean staleWindowOpen() {
        return window.snapshot() != null && windowUntil - System.nanoTime() > 0;
    }

    public Figures figures() {
        return new Figures(requests.get(), elections.get(), staleCount.get(), staleEmpty.get(), lostReplies.get(),
                replays.get(), rolledBack.get(), kept.get(), unchanged.get(), retriesRunAgain.get());
    }

    /** The reads answered from a snapshot (the first {@value #KEPT_STALE_READS}), in order. */
    public List<StaleRead> staleReads() {
        synchronized (staleReads) {
            return List.copyOf(staleReads);
        }
    }

    /** What went wrong inside the layer (a freeze that could not drain, an election or capture that failed); empty when all went well. */
    public List<String> problems() {
        synchronized (problems) {
            return List.copyOf(problems);
        }
    }

    private ArmedFault arm(ArmedFault fault) {
        armed.add(fault);
        return fault;
    }

    private void fireNow(ArmedFault election) {
        if (election.claim()) {
            armed.remove(election);
            elect(election.window());
            election.done(null);
        }
    }

    /** Under a freeze: rolls back, then opens the window (or closes the one open). */
    private void electFrozen(StaleWindow next) {
        RollbackLog.Outcome outcome = rollbacks.rollBack(next.snapshot());
        rolledBack.addAndGet(outcome.rolledBack());
        kept.addAndGet(outcome.kept());
        unchanged.addAndGet(outcome.unchanged());
        windowUntil = System.nanoTime() + next.length().toNanos();
        window = next;
        elections.incrementAndGet();
    }

    private ArmedFault claim(ArmedFault.Kind kind, WireCommand command) {
        for (ArmedFault fault : armed) {
            if (fault.kind() == kind && fault.claim(command)) {
                armed.remove(fault);
                return fault;
            }
        }
        return null;
    }

    /** A failure inside the layer ends the client's connection and is kept for {@link #problems()}. */
    private void onRequest(FaultLink link, WireMessage request) throws IOException {
        try {
            handle(link, request);
        } catch (RuntimeException failed) {
            problems.add("handling a request on connection " + link.id() + " failed: " + failed);
            throw failed;
        }
    }

    private void handle(FaultLink link, WireMessage request) throws IOException {
        if (!request.isOpMsg()) {
            link.send(request); // the handshake (OP_QUERY), or anything compressed
            return;
        }
        requests.incrementAndGet();
        WireCommand command = WireCommand.of(link.id(), request);
        ArmedFault election = claim(ArmedFault.Kind.ELECTION, command);
        if (election != null) {
            elect(election.window());
            election.done(command);
        }
        if (request.moreToCome()) {
            link.send(request); // no answer to lose, replay or count
        } else if (command.isRead()) {
            sendRead(link, request, command);
        } else if (command.isWrite()) {
            sendWrite(link, request, command);
        } else {
            link.send(request);
        }
    }

    private void sendRead(FaultLink link, WireMessage request, WireCommand read) throws IOException {
        StaleWindow open = window;
        boolean stale = open.covers(read) && windowUntil - System.nanoTime() > 0;
        ArmedFault lose = claimLoss(read);
        WireMessage out = request;
        if (stale) {
            BsonDocument body = request.body();
            body.put(read.name(), new BsonString(open.snapshot().staleName(read.collection())));
            out = request.withBody(body);
        }
        link.expect(request.requestId(), reply -> {
            if (stale) {
                recordStale(read, reply.body());
            }
            if (lose != null) {
                lostReplies.incrementAndGet();
                lose.done(read);
                link.cut();
            } else {
                link.deliver(reply);
            }
        });
        link.send(out);
    }

    private void sendWrite(FaultLink link, WireMessage original, WireCommand write) throws IOException {
        WireMessage request = original;
        if (rollbacks.retryOfRolledBack(write)) {
            request = withoutTransactionNumber(original);
        }
        sendWrite(link, request, write, claimLoss(write));
    }

    /** The retry of a rolled-back write: the rollback undid the server's record of it too, so it runs again, as a plain write. */
    private WireMessage withoutTransactionNumber(WireMessage retry) {
        BsonDocument body = retry.body();
        body.remove("txnNumber");
        retriesRunAgain.incrementAndGet();
        return retry.withBody(body);
    }

    private void sendWrite(FaultLink link, WireMessage request, WireCommand write, ArmedFault lose) throws IOException {
        ArmedFault replay = lose == null ? claim(ArmedFault.Kind.REPLAY, write) : null;
        if (lose != null) {
            loseWrite(link, request, write, lose);
            return;
        }
        enter();
        long place = rollbacks.place();
        link.expect(request.requestId(), new FaultLink.ReplyHandler() {
            @Override
            public void onReply(WireMessage reply) throws IOException {
                gate.exit();
                if (replay == null) {
                    rollbacks.answered(place);
                    link.deliver(reply);
                } // else the first copy's answer: lost, as the caller who retried saw it
            }

            @Override
            public void onClosed() {
                gate.exit();
            }
        });
        link.send(request);
        if (replay != null) {
            int copy = Integer.MIN_VALUE + copyIds.getAndIncrement();
            enter();
            long copyPlace = rollbacks.place();
            link.expect(copy, new FaultLink.ReplyHandler() {
                @Override
                public void onReply(WireMessage reply) throws IOException {
                    gate.exit();
                    rollbacks.answered(copyPlace);
                    replays.incrementAndGet();
                    replay.done(write);
                    link.deliver(reply.withResponseTo(request.requestId()));
                }

                @Override
                public void onClosed() {
                    gate.exit();
                }
            });
            link.send(request.withRequestId(copy));
        }
    }

    /** The write is applied with every other write held; its images are captured, its answer dropped, its connection reset. */
    private void loseWrite(FaultLink link, WireMessage request, WireCommand write, ArmedFault lose) throws IOException {
        WriteGate.Freeze frozen = gate.freeze();
        RollbackLog.LostWrite captured;
        try {
            captured = rollbacks.before(write);
        } catch (RuntimeException failed) {
            frozen.close();
            throw failed;
        }
        link.expect(request.requestId(), new FaultLink.ReplyHandler() {
            @Override
            public void onReply(WireMessage reply) {
                try {
                    rollbacks.after(captured, reply.body());
                    if (lose.kind() == ArmedFault.Kind.LOSE_REPLY_THEN_ELECT) {
                        electFrozen(StaleWindow.NONE);
                    }
                } catch (RuntimeException failed) {
                    problems.add("capturing the lost write " + write + " failed: " + failed);
                } finally {
                    frozen.close();
                }
                lostReplies.incrementAndGet();
                lose.done(write);
                link.cut();
            }

            @Override
            public void onClosed() {
                try {
                    rollbacks.after(captured, null); // applied or not: what the data shows now
                } catch (RuntimeException failed) {
                    problems.add("capturing the write " + write + " whose connection closed failed: " + failed);
                } finally {
                    frozen.close();
                }
            }
        });
        link.send(request);
    }

    private ArmedFault claimLoss(WireCommand command) {
        ArmedFault lose = claim(ArmedFault.Kind.LOSE_REPLY, command);
        return lose != null ? lose : claim(ArmedFault.Kind.LOSE_REPLY_THEN_ELECT, command);
    }

    private void enter() {
        try {
            gate.enter();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writes were held", interrupted);
        }
    }

    private void recordStale(WireCommand read, BsonDocument reply) {
        int returned = !ok(reply) ? -1 : switch (read.name()) {
            case "count" -> reply.get("n") != null && reply.get("n").isNumber() ? reply.get("n").asNumber().intValue() : -1;
            case "distinct" -> reply.get("values") instanceof BsonArray values ? values.size() : -1;
            default -> reply.get("cursor") instanceof BsonDocument cursor && cursor.get("firstBatch") instanceof BsonArray batch
                    ? batch.size() : -1;
        };
        staleCount.incrementAndGet();
        if (returned == 0) {
            staleEmpty.incrementAndGet();
        }
        synchronized (staleReads) {
            if (staleReads.size() < KEPT_STALE_READS) {
                staleReads.add(new StaleRead(read, returned, System.nanoTime()));
            }
        }
    }

    private static boolean ok(BsonDocument reply) {
        BsonValue ok = reply.get("ok");
        return ok != null && ok.isNumber() && ok.asNumber().doubleValue() == 1.0;
    }

    private void acceptLoop() {
        while (!closed) {
            Socket accepted;
            try {
                accepted = server.accept();
            } catch (IOException stopped) {
                return;
            }
            try {
                Socket upstream = new Socket();
                upstream.connect(target, 2_000);
                accepted.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                links.add(FaultLink.start(connections.incrementAndGet(), accepted, upstream, this::onRequest, links::remove));
            } catch (IOException unreachable) {
                try {
                    accepted.close();
                } catch (IOException ignored) {
                    // gone already
                }
            }
        }
    }

    private void closeAfterLifetime() {
        long end = System.nanoTime() + MAX_LIFETIME.toNanos();
        long left;
        while (!closed && (left = end - System.nanoTime()) > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.SECONDS.toNanos(1)));
            } catch (InterruptedException interrupted) {
                return;
            }
        }
        close();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // nothing to do
        }
        links.forEach(FaultLink::cut);
        client.close();
    }
}
