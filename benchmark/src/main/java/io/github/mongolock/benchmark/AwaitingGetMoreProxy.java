package io.github.mongolock.benchmark;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * A TCP proxy on 127.0.0.1 in front of one MongoDB (the benchmark's stand-in) that makes a change
 * stream's {@code getMore} wait the way a real server does. The stand-in answers every {@code getMore}
 * at once, empty or not; a real server holds an empty one on a tailable-await cursor until the oplog
 * moves or {@code maxAwaitTimeMS} has passed (the driver sends that await as the getMore's
 * {@code maxTimeMS}).
 *
 * <p><b>What it changes.</b> Every message is forwarded unchanged in both directions, with one
 * exception: when the server's answer to a {@code getMore} (OP_MSG) on a change-stream cursor has an
 * empty {@code nextBatch}, the proxy keeps it from the client and waits until either a write command
 * ({@code insert}, {@code update}, {@code delete}, {@code findAndModify}) to the same database has been
 * answered with {@code ok: 1} through the proxy, on any connection, after the getMore arrived (the oplog
 * moved), or the getMore's {@code maxTimeMS} (1 s when absent) has passed since it arrived. After a
 * write it sends the same getMore to the server again (a fresh {@code requestId}) and looks at that
 * answer the same way: empty with time left, it waits again (a real server too wakes on every oplog
 * write and goes back to waiting when nothing matched). The answer finally given to the client carries
 * the client's own request id in {@code responseTo}; the empty answers before it are dropped. A
 * change-stream cursor is one that an {@code aggregate} whose pipeline starts with {@code $changeStream}
 * returned; it stops being one when a reply says cursor id 0 or a {@code killCursors} names it.
 * With {@code holdEmptyGetMores = false} the proxy parses the same messages and holds nothing: a
 * pass-through whose cost is the hop alone.
 *
 * <p><b>Limits.</b>
 * <ul>
 *   <li>No compression: an OP_COMPRESSED message (opcode 2012) in either direction closes its
 *       connection with an error on standard error, so a run that compresses fails instead of being
 *       measured wrongly. The driver compresses only when its settings name compressors
 *       ({@code compressors=} in the URI, {@code MongoClientSettings.compressorList}); the benchmark's
 *       clients name none, so their handshake offers none (and the stand-in offers none either).</li>
 *   <li>Only OP_MSG is inspected; OP_QUERY/OP_REPLY (the driver's first {@code isMaster}/{@code hello}
 *       handshake) and anything else pass through untouched.</li>
 *   <li>A held getMore occupies its connection, as on a real server; the proxy assumes the client sends
 *       nothing else on that connection until it has its answer (true of the driver: a connection
 *       carries one operation at a time; exhaust cursors, which the sync driver does not use for
 *       getMore, are not supported).</li>
 *   <li>"The oplog moved" is judged from answers seen by this proxy only: a write sent to the server by
 *       another route wakes no held getMore until its await ends. Writes that changed nothing (a failed
 *       conditional update with {@code ok: 1}) wake held getMores too; they then find nothing and wait
 *       again, as on a real server, at the price of one extra round trip to the server.</li>
 *   <li>Timing is the proxy's: the await is measured from the getMore's arrival at the proxy, and the
 *       wake-up costs one more round trip to the server (the re-sent getMore), where a real server
 *       wakes inside itself.</li>
 * </ul>
 *
 * <p><b>Threads and bounds.</b> One accepting thread, and two threads per client connection (client to
 * server, server to client), at most {@code maxConnections} connections at a time (a further one is
 * closed at once). A held getMore waits in its connection's server-to-client thread. {@link #close()}
 * closes the listening socket and every connection, wakes every held getMore and joins the threads;
 * all threads are daemons. Thread-safe.
 */
final class AwaitingGetMoreProxy implements AutoCloseable {

    static final int OP_COMPRESSED = 2012;
    static final int OP_MSG = 2013;
    private static final int HEADER_BYTES = 16;
    /** The server's maxMessageSizeBytes (48 MB) plus room: anything larger is not MongoDB talking. */
    private static final int MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
    private static final int CHECKSUM_PRESENT = 1;
    private static final long DEFAULT_AWAIT_MS = 1_000;
    private static final Set<String> WRITES = Set.of("insert", "update", "delete", "findAndModify", "findandmodify");

    private final InetSocketAddress server;
    private final boolean holdEmptyGetMores;
    private final int maxConnections;
    private final ServerSocket listening;
    private final Thread acceptor;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final Set<Long> changeStreamCursors = ConcurrentHashMap.newKeySet();
    /** Writes answered through the proxy, per database; guarded by itself, notified on every change. */
    private final Map<String, Long> writesAnswered = new HashMap<>();
    private final AtomicInteger nextRequestId = new AtomicInteger(0x4000_0000);
    private final AtomicInteger connectionNumbers = new AtomicInteger();
    private volatile boolean closed;

    private final AtomicLong getMoresSeen = new AtomicLong();
    private final AtomicLong getMoresHeld = new AtomicLong();
    private final AtomicLong getMoresResent = new AtomicLong();
    private final AtomicLong heldUntilAwaitEnded = new AtomicLong();
    private final AtomicLong heldNanos = new AtomicLong();
    private final AtomicLong connectionsRefused = new AtomicLong();

    /** What the proxy did so far, for the report. */
    record Counts(long getMores, long held, long resent, long endedByAwait, double heldSeconds, long refused) {
        @Override
        public String toString() {
            return String.format(java.util.Locale.ROOT, "%d change-stream getMore, %d held (%d re-sent after a write,"
                    + " %d answered empty at the await's end), %.1f s held in all%s", getMores, held, resent,
                    endedByAwait, heldSeconds, refused == 0 ? "" : ", " + refused + " connections refused");
        }
    }

    private AwaitingGetMoreProxy(InetSocketAddress server, boolean holdEmptyGetMores, int maxConnections) throws IOException {
        this.server = server;
        this.holdEmptyGetMores = holdEmptyGetMores;
        this.maxConnections = maxConnections;
        this.listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::accept, "getmore-proxy-accept-" + listening.getLocalPort());
        acceptor.setDaemon(true);
    }

    /**
     * @param holdEmptyGetMores true: hold empty change-stream getMore answers (the real server's wait);
     *                          false: forward everything at once (the hop alone)
     */
    static AwaitingGetMoreProxy start(String serverHost, int serverPort, boolean holdEmptyGetMores, int maxConnections)
            throws IOException {
        AwaitingGetMoreProxy proxy = new AwaitingGetMoreProxy(new InetSocketAddress(serverHost, serverPort),
                holdEmptyGetMores, maxConnections);
        proxy.acceptor.start();
        return proxy;
    }

    int port() {
        return listening.getLocalPort();
    }

    /** A connection string for the driver through this proxy (no compressors named: see the class comment). */
    String uri() {
        return "mongodb://127.0.0.1:" + port();
    }

    Counts counts() {
        return new Counts(getMoresSeen.get(), getMoresHeld.get(), getMoresResent.get(), heldUntilAwaitEnded.get(),
                heldNanos.get() / 1e9, connectionsRefused.get());
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listening.accept();
            } catch (IOException ended) {
                return; // closed
            }
            if (connections.size() >= maxConnections) {
                connectionsRefused.incrementAndGet();
                closeQuietly(client);
                continue;
            }
            try {
                Socket upstream = new Socket();
                upstream.setTcpNoDelay(true);
                upstream.connect(server, 10_000);
                client.setTcpNoDelay(true);
                Connection connection = new Connection(connectionNumbers.incrementAndGet(), client, upstream);
                connections.add(connection);
                if (closed) {
                    connection.close();
                } else {
                    connection.start();
                }
            } catch (IOException unreachable) {
                System.err.println("getMore proxy: cannot reach " + server + ": " + unreachable.getMessage());
                closeQuietly(client);
            }
        }
    }

    /** Closes the listening socket and every connection, wakes every held getMore, joins the threads (bounded). */
    @Override
    public void close() {
        closed = true;
        closeQuietly(listening);
        synchronized (writesAnswered) {
            writesAnswered.notifyAll();
        }
        java.util.List<Connection> open = java.util.List.copyOf(connections);
        for (Connection connection : open) {
            connection.close();
        }
        try {
            acceptor.join(5_000);
            for (Connection connection : open) {
                connection.join(5_000);
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- the oplog clock ----------------------------------------------------------------------

    private long writes(String database) {
        synchronized (writesAnswered) {
            return writesAnswered.getOrDefault(database, 0L);
        }
    }

    private void writeAnswered(String database) {
        synchronized (writesAnswered) {
            writesAnswered.merge(database, 1L, Long::sum);
            writesAnswered.notifyAll();
        }
    }

    /**
     * @return true when a write to {@code database} was answered after {@code seen}; false when the deadline
     *         came first, or the connection or the proxy was closed
     */
    private boolean awaitWrite(Connection connection, String database, long seen, long deadlineNanos)
            throws InterruptedException {
        synchronized (writesAnswered) {
            while (!closed && !connection.ended && writesAnswered.getOrDefault(database, 0L) <= seen) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(writesAnswered, left);
            }
            return !closed && !connection.ended;
        }
    }

    // ---- one client connection ----------------------------------------------------------------

    /** What the proxy remembers of a request until its answer comes. */
    private sealed interface Pending permits OpensChangeStream, Write, ChangeStreamGetMore {
    }

    private record OpensChangeStream() implements Pending {
    }

    private record Write(String database) implements Pending {
    }

    /** @param message the client's getMore as sent, to send again */
    private record ChangeStreamGetMore(byte[] message, String database, long arrivedNanos, long writesSeen,
                                       long awaitMs) implements Pending {
    }

    private final class Connection {
        private final Socket client;
        private final Socket upstream;
        private final Thread clientToServer;
        private final Thread serverToClient;
        /** By the client's requestId. */
        private final Map<Integer, Pending> pending = new ConcurrentHashMap<>();
        private final Object serverOutput = new Object();
        private OutputStream toServer;
        private volatile boolean ended;

        Connection(int number, Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
            this.clientToServer = new Thread(this::forwardRequests, "getmore-proxy-" + number + "-up");
            this.serverToClient = new Thread(this::forwardAnswers, "getmore-proxy-" + number + "-down");
            clientToServer.setDaemon(true);
            serverToClient.setDaemon(true);
        }

        void start() throws IOException {
            toServer = new BufferedOutputStream(upstream.getOutputStream(), 64 * 1024);
            clientToServer.start();
            serverToClient.start();
        }

        void join(long millis) throws InterruptedException {
            clientToServer.join(millis);
            serverToClient.join(millis);
        }

        void close() {
            ended = true;
            closeQuietly(client);
            closeQuietly(upstream);
            connections.remove(this);
            synchronized (writesAnswered) {
                writesAnswered.notifyAll(); // a getMore held for this connection stops waiting
            }
        }

        private void sendToServer(byte[] message) throws IOException {
            synchronized (serverOutput) {
                toServer.write(message);
                toServer.flush();
            }
        }

        private void forwardRequests() {
            try (DataInputStream fromClient = new DataInputStream(new BufferedInputStream(client.getInputStream(), 64 * 1024))) {
                for (byte[] message; (message = readMessage(fromClient)) != null; ) {
                    remember(message);
                    sendToServer(message);
                }
            } catch (IOException | RuntimeException ended) {
                report(ended);
            } finally {
                close();
            }
        }

        private void forwardAnswers() {
            try (DataInputStream fromServer = new DataInputStream(new BufferedInputStream(upstream.getInputStream(), 64 * 1024));
                 OutputStream toClient = new BufferedOutputStream(client.getOutputStream(), 64 * 1024)) {
                for (byte[] message; (message = readMessage(fromServer)) != null; ) {
                    Pending request = opCode(message) == OP_MSG ? pending.remove(responseTo(message)) : null;
                    if (request instanceof ChangeStreamGetMore getMore) {
                        message = answer(getMore, message, fromServer);
                    } else if (request instanceof OpensChangeStream) {
                        long cursor = cursorId(body(message));
                        if (cursor != 0) {
                            changeStreamCursors.add(cursor);
                        }
                    }
                    toClient.write(message);
                    toClient.flush();
                    if (request instanceof Write write && isOk(body(message))) {
                        writeAnswered(write.database()); // after the client has it, as a majority write's ack
                    }
                }
            } catch (IOException | RuntimeException ended) {
                report(ended);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            } finally {
                close();
            }
        }

        /** Notes what the client asked for; the message itself is forwarded unchanged. */
        private void remember(byte[] message) {
            if (opCode(message) != OP_MSG) {
                return;
            }
            BsonDocument command = body(message);
            if (command == null || command.isEmpty()) {
                return;
            }
            String name = command.getFirstKey();
            BsonValue db = command.get("$db");
            String database = db != null && db.isString() ? db.asString().getValue() : "";
            int requestId = requestId(message);
            if (name.equals("getMore")) {
                long cursor = command.get("getMore").asNumber().longValue();
                if (changeStreamCursors.contains(cursor)) {
                    getMoresSeen.incrementAndGet();
                    BsonValue maxTime = command.get("maxTimeMS");
                    long awaitMs = maxTime != null && maxTime.isNumber() ? maxTime.asNumber().longValue() : DEFAULT_AWAIT_MS;
                    // Read before the getMore leaves: a write answered from now on may have come too late for it.
                    pending.put(requestId, new ChangeStreamGetMore(message, database, System.nanoTime(), writes(database),
                            awaitMs));
                }
            } else if (name.equals("aggregate")) {
                BsonValue pipeline = command.get("pipeline");
                if (pipeline instanceof BsonArray stages && !stages.isEmpty() && stages.get(0).isDocument()
                        && stages.get(0).asDocument().containsKey("$changeStream")) {
                    pending.put(requestId, new OpensChangeStream());
                }
            } else if (name.equals("killCursors")) {
                BsonValue cursors = command.get("cursors");
                if (cursors instanceof BsonArray ids) {
                    ids.forEach(id -> changeStreamCursors.remove(id.asNumber().longValue()));
                }
            } else if (WRITES.contains(name)) {
                pending.put(requestId, new Write(database));
            }
        }

        /**
         * The answer the client gets to a change-stream getMore: the server's, unless it is empty and the
         * await is not over; then the getMore is sent again after the next write, until something comes
         * back or the await ends.
         */
        private byte[] answer(ChangeStreamGetMore getMore, byte[] first, DataInputStream fromServer)
                throws IOException, InterruptedException {
            byte[] answer = first;
            long deadline = getMore.arrivedNanos() + TimeUnit.MILLISECONDS.toNanos(getMore.awaitMs());
            long seen = getMore.writesSeen();
            boolean held = false;
            while (holdEmptyGetMores && !closed && !ended) {
                BsonDocument reply = body(answer);
                if (!isEmptyBatch(reply)) {
                    break;
                }
                if (!held) {
                    held = true;
                    getMoresHeld.incrementAndGet();
                }
                if (!awaitWrite(this, getMore.database(), seen, deadline)) {
                    heldUntilAwaitEnded.incrementAndGet();
                    break; // the await is over: the empty answer goes out, as from a real server
                }
                seen = writes(getMore.database()); // before sending: a later write wakes the next wait
                int resentId = nextRequestId.getAndIncrement();
                sendToServer(withIds(getMore.message(), resentId, null));
                getMoresResent.incrementAndGet();
                answer = readMessage(fromServer);
                if (answer == null) {
                    throw new EOFException("the server closed the connection during a re-sent getMore");
                }
                if (responseTo(answer) != resentId) {
                    throw new IOException("unexpected message from the server while a re-sent getMore was pending"
                            + " (responseTo " + responseTo(answer) + ", expected " + resentId + ")");
                }
            }
            if (held) {
                heldNanos.addAndGet(System.nanoTime() - getMore.arrivedNanos());
            }
            long cursor = cursorId(body(answer));
            if (cursor == 0) {
                changeStreamCursors.remove(cursorOf(getMore.message()));
            }
            return answer == first ? answer : withIds(answer, null, requestId(getMore.message()));
        }

        private long cursorOf(byte[] getMoreMessage) {
            return body(getMoreMessage).get("getMore").asNumber().longValue();
        }

        private void report(Exception ended) {
            if (closed || ended instanceof EOFException || ended instanceof SocketException) {
                return; // a connection closed by either side or by close(): the ordinary end
            }
            System.err.println("getMore proxy: connection ended: " + ended);
        }
    }

    // ---- the wire format (little-endian header: length, requestId, responseTo, opCode) --------

    /** The next whole message, or null at a clean end of stream; fails on OP_COMPRESSED. */
    static byte[] readMessage(DataInputStream in) throws IOException {
        byte[] header = new byte[HEADER_BYTES];
        int first = in.read();
        if (first < 0) {
            return null;
        }
        header[0] = (byte) first;
        in.readFully(header, 1, HEADER_BYTES - 1);
        ByteBuffer view = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        int length = view.getInt(0);
        if (length < HEADER_BYTES || length > MAX_MESSAGE_BYTES) {
            throw new IOException("not a MongoDB message: length " + length);
        }
        if (view.getInt(12) == OP_COMPRESSED) {
            throw new IOException("OP_COMPRESSED is not supported by the getMore proxy: configure no compressors");
        }
        byte[] message = new byte[length];
        System.arraycopy(header, 0, message, 0, HEADER_BYTES);
        in.readFully(message, HEADER_BYTES, length - HEADER_BYTES);
        return message;
    }

    private static ByteBuffer little(byte[] message) {
        return ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN);
    }

    static int requestId(byte[] message) {
        return little(message).getInt(4);
    }

    static int responseTo(byte[] message) {
        return little(message).getInt(8);
    }

    static int opCode(byte[] message) {
        return little(message).getInt(12);
    }

    /** The OP_MSG's body (its kind-0 section), or null when it has none or is no OP_MSG. */
    static BsonDocument body(byte[] message) {
        if (message.length < HEADER_BYTES + 5 || opCode(message) != OP_MSG) {
            return null;
        }
        ByteBuffer view = little(message);
        int flags = view.getInt(HEADER_BYTES);
        int end = message.length - ((flags & CHECKSUM_PRESENT) != 0 ? 4 : 0);
        int at = HEADER_BYTES + 4;
        while (at < end) {
            byte kind = message[at++];
            int size = view.getInt(at);
            if (kind == 0) {
                return new RawBsonDocument(message, at, size);
            }
            at += size; // kind 1: a document sequence, its size counting itself
        }
        return null;
    }

    /**
     * A copy with a new requestId and/or responseTo (null: unchanged), its CRC-32C checksum recomputed
     * when it carries one.
     */
    static byte[] withIds(byte[] message, Integer requestId, Integer responseTo) {
        byte[] copy = message.clone();
        ByteBuffer view = little(copy);
        if (requestId != null) {
            view.putInt(4, requestId);
        }
        if (responseTo != null) {
            view.putInt(8, responseTo);
        }
        if (opCode(copy) == OP_MSG && (view.getInt(HEADER_BYTES) & CHECKSUM_PRESENT) != 0) {
            CRC32C crc = new CRC32C();
            crc.update(copy, 0, copy.length - 4);
            view.putInt(copy.length - 4, (int) crc.getValue());
        }
        return copy;
    }

    private static boolean isOk(BsonDocument reply) {
        BsonValue ok = reply == null ? null : reply.get("ok");
        return ok != null && ok.isNumber() && ok.asNumber().doubleValue() == 1.0;
    }

    /** A successful cursor answer with an empty nextBatch on a cursor still open. */
    static boolean isEmptyBatch(BsonDocument reply) {
        if (!isOk(reply) || !(reply.get("cursor") instanceof BsonDocument cursor)) {
            return false;
        }
        BsonValue batch = cursor.get("nextBatch");
        return batch instanceof BsonArray documents && documents.isEmpty() && cursorId(reply) != 0;
    }

    static long cursorId(BsonDocument reply) {
        if (reply == null || !(reply.get("cursor") instanceof BsonDocument cursor)) {
            return 0;
        }
        BsonValue id = cursor.get("id");
        return id != null && id.isNumber() ? id.asNumber().longValue() : 0;
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }
}
