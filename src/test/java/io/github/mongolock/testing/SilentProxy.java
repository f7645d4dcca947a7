package io.github.mongolock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on 127.0.0.1 that forwards to MongoDB until {@link #silence()}; from then on it keeps
 * every connection open, accepts new ones, reads what the client sends and never answers: a server
 * that hangs, a network that swallows packets, a majority that never acknowledges. Nothing fails,
 * nothing returns. Thread-safe; daemon threads only; {@link #close()} ends everything.
 */
public final class SilentProxy implements AutoCloseable {

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean silent;

    private SilentProxy(ServerSocket server, InetSocketAddress target) {
        this.server = server;
        this.target = target;
    }

    /** @param mongoUri a {@code mongodb://host:port} URI of the server to forward to */
    public static SilentProxy start(String mongoUri) {
        String[] hostPort = mongoUri.substring("mongodb://".length()).split("[:/?]");
        try {
            ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            SilentProxy proxy = new SilentProxy(server, new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])));
            daemon(proxy::acceptLoop, "silent-proxy-accept");
            return proxy;
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot start the proxy", failed);
        }
    }

    /** A URI through the proxy, talking to the one server directly. */
    public String uri() {
        return "mongodb://127.0.0.1:" + server.getLocalPort() + "/?directConnection=true";
    }

    /** From now on nothing is answered, on old connections or new ones. */
    public void silence() {
        silent = true;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                sockets.add(client);
                if (silent) {
                    daemon(() -> swallow(client), "silent-proxy-swallow");
                    continue;
                }
                Socket upstream = new Socket(target.getAddress(), target.getPort());
                sockets.add(upstream);
                daemon(() -> pump(client, upstream), "silent-proxy-up");
                daemon(() -> pump(upstream, client), "silent-proxy-down");
            } catch (IOException closedOrRefused) {
                if (server.isClosed()) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                if (silent) {
                    swallow(from); // drop this and everything after it
                    return;
                }
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException closed) {
            // the other side went away
        }
    }

    private static void swallow(Socket socket) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = socket.getInputStream()) {
            while (in.read(buffer) >= 0) {
                // read and forget: the client's request is "sent", the answer never comes
            }
        } catch (IOException closed) {
            // the client gave up
        }
    }

    private static void daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
