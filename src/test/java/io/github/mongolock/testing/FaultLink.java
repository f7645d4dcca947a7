package io.github.mongolock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One client connection of {@link ReplicaSetFaults} and its twin to MongoDB, message by message: the client's
 * requests go to a handler (which forwards them, changed or not, with {@link #send}), and each reply goes to the
 * {@link ReplyHandler} registered for its request, or straight back to the client when none is. Two daemon
 * threads; {@link #cut} resets both sockets (the client sees its connection reset), and every handler still
 * waiting then hears {@link ReplyHandler#onClosed} once. Thread-safe.
 */
final class FaultLink {

    /** What to do with the answer to one request. */
    interface ReplyHandler {
        void onReply(WireMessage reply) throws IOException;

        /** The connection closed before the answer came. */
        default void onClosed() {
        }
    }

    /** What to do with one request of the client's. */
    interface RequestHandler {
        void onRequest(FaultLink link, WireMessage request) throws IOException;
    }

    private final int id;
    private final Socket client;
    private final Socket upstream;
    private final OutputStream toClient;
    private final OutputStream toServer;
    private final Map<Integer, ReplyHandler> pending = new ConcurrentHashMap<>();
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final Consumer<FaultLink> onCut;

    private FaultLink(int id, Socket client, Socket upstream, Consumer<FaultLink> onCut) throws IOException {
        this.id = id;
        this.client = client;
        this.upstream = upstream;
        this.toClient = client.getOutputStream();
        this.toServer = upstream.getOutputStream();
        this.onCut = onCut;
    }

    /** Starts relaying between {@code client} and {@code upstream}; {@code onCut} hears when the link ends. */
    static FaultLink start(int id, Socket client, Socket upstream, RequestHandler requests, Consumer<FaultLink> onCut)
            throws IOException {
        FaultLink link = new FaultLink(id, client, upstream, onCut);
        daemon(() -> link.readRequests(requests), "replica-set-faults-up-" + id);
        daemon(link::readReplies, "replica-set-faults-down-" + id);
        return link;
    }

    int id() {
        return id;
    }

    /** Registers what to do with the answer to {@code requestId}; call before sending the request. */
    void expect(int requestId, ReplyHandler handler) {
        pending.put(requestId, handler);
        if (!open.get() && pending.remove(requestId, handler)) {
            handler.onClosed();
        }
    }

    /** Forwards a request to MongoDB; on the requests' thread only. */
    void send(WireMessage request) throws IOException {
        toServer.write(request.bytes());
        toServer.flush();
    }

    /** Hands a reply to the client; on the replies' thread only. */
    void deliver(WireMessage reply) throws IOException {
        toClient.write(reply.bytes());
        toClient.flush();
    }

    private void readRequests(RequestHandler requests) {
        try (InputStream in = client.getInputStream()) {
            WireMessage request;
            while ((request = WireMessage.read(in)) != null) {
                requests.onRequest(this, request);
            }
        } catch (IOException | RuntimeException ended) {
            // the client went away, or the link was cut; a handler's failure ends the link as well
        } finally {
            cut();
        }
    }

    private void readReplies() {
        try (InputStream in = upstream.getInputStream()) {
            WireMessage reply;
            while ((reply = WireMessage.read(in)) != null) {
                ReplyHandler handler = pending.remove(reply.responseTo());
                if (handler == null) {
                    deliver(reply);
                } else {
                    handler.onReply(reply);
                }
            }
        } catch (IOException | RuntimeException ended) {
            // MongoDB closed the connection, or the link was cut
        } finally {
            cut();
        }
    }

    /** Resets both connections; every answer still awaited is reported as never coming. */
    void cut() {
        if (!open.compareAndSet(true, false)) {
            return;
        }
        reset(client);
        reset(upstream);
        for (Integer requestId : pending.keySet()) {
            ReplyHandler handler = pending.remove(requestId);
            if (handler != null) {
                handler.onClosed();
            }
        }
        onCut.accept(this);
    }

    private static void reset(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
        } catch (SocketException ignored) {
            // closing is all that matters
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    static void daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }
}
