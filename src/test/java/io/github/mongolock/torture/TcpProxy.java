package io.github.mongolock.torture;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on 127.0.0.1 between the workers and MongoDB, with three faults: {@link #cutRandom}
 * resets one connection, {@link #stallRandom} holds one connection's bytes in both directions for a
 * while (then delivers them late, as a congested network would), and {@link #refuse} resets every
 * connection and every new one until it is switched off (MongoDB "down"). Thread-safe; two daemon
 * threads per connection.
 */
final class TcpProxy implements AutoCloseable {

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private volatile boolean refusing;
    private volatile boolean closed;

    private TcpProxy(ServerSocket server, InetSocketAddress target) {
        this.server = server;
        this.target = target;
    }

    static TcpProxy start(String targetHost, int targetPort) {
        try {
            ServerSocket server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
            TcpProxy proxy = new TcpProxy(server, new InetSocketAddress(targetHost, targetPort));
            daemon(proxy::acceptLoop, "torture-proxy-accept");
            return proxy;
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot start the proxy", failed);
        }
    }

    int port() {
        return server.getLocalPort();
    }

    /** While on, MongoDB looks down: live connections are reset, new ones reset on arrival. */
    void refuse(boolean on) {
        refusing = on;
        if (on) {
            links.forEach(Link::cut);
        }
    }

    /** @return whether there was a connection to cut */
    boolean cutRandom(Random random) {
        Link link = pick(random);
        if (link == null) {
            return false;
        }
        link.cut();
        return true;
    }

    /** @return whether there was a connection to stall */
    boolean stallRandom(Random random, Duration duration) {
        Link link = pick(random);
        if (link == null) {
            return false;
        }
        link.stalledUntil = System.nanoTime() + duration.toNanos();
        return true;
    }

    private Link pick(Random random) {
        List<Link> live = new ArrayList<>(links);
        return live.isEmpty() ? null : live.get(random.nextInt(live.size()));
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException stopped) {
                return;
            }
            if (refusing) {
                reset(client);
                continue;
            }
            try {
                Socket upstream = new Socket();
                upstream.connect(target, 2_000);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                Link link = new Link(client, upstream);
                links.add(link);
                daemon(() -> link.pump(client, upstream), "torture-proxy-up");
                daemon(() -> link.pump(upstream, client), "torture-proxy-down");
            } catch (IOException unreachable) {
                reset(client);
            }
        }
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

    private static void daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // nothing to do
        }
        links.forEach(Link::cut);
    }

    /** One client connection and its upstream twin. */
    private final class Link {
        private final Socket client;
        private final Socket upstream;
        volatile long stalledUntil = System.nanoTime();

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void pump(Socket from, Socket to) {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    long left;
                    while ((left = stalledUntil - System.nanoTime()) > 0) {
                        LockSupport.parkNanos(left);
                    }
                    out.write(buffer, 0, read);
                }
            } catch (IOException gone) {
                // reset by cut(), or by either peer
            } finally {
                cut();
            }
        }

        void cut() {
            links.remove(this);
            reset(client);
            reset(upstream);
        }
    }
}
