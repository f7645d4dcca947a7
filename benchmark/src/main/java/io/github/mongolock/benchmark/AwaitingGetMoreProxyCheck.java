package io.github.mongolock.benchmark;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;

/**
 * Shows that {@link AwaitingGetMoreProxy} holds an empty change-stream getMore as a real server does:
 * a stand-in in this JVM, a change stream with {@code maxAwaitTime} 500 ms opened directly and through
 * the proxy, and {@code tryNext()} timed (a) with nothing written, (b) with a write to the watched
 * collection landing 150 ms into the wait, (c) with a write to another collection of the database
 * (wakes the getMore, which finds nothing and waits on). Prints the figures and a verdict per check;
 * exits 1 when a check fails. About 10 s. Run after {@code mvn -B -ntp -q -f benchmark compile}:
 * <pre>
 * java -cp 'benchmark/target/classes:benchmark/target/lib/*' io.github.mongolock.benchmark.AwaitingGetMoreProxyCheck
 * </pre>
 */
public final class AwaitingGetMoreProxyCheck {

    private static final long AWAIT_MS = 500;
    private static final long WRITE_AFTER_MS = 150;
    private static final int REPEATS = 5;

    private int failures;

    private AwaitingGetMoreProxyCheck() {
    }

    public static void main(String[] args) throws Exception {
        java.util.logging.Logger.getLogger("de.bwaldvogel").setLevel(java.util.logging.Level.WARNING);
        AwaitingGetMoreProxyCheck check = new AwaitingGetMoreProxyCheck();
        MongoServer server = new MongoServer(new MemoryBackend());
        server.enableOplog();
        server.bind("127.0.0.1", 0);
        int port = server.getLocalAddress().getPort();
        try (AwaitingGetMoreProxy awaiting = AwaitingGetMoreProxy.start("127.0.0.1", port, true, 16);
             AwaitingGetMoreProxy passing = AwaitingGetMoreProxy.start("127.0.0.1", port, false, 16)) {
            check.route("direct", "mongodb://127.0.0.1:" + port, false);
            check.route("pass-through proxy", passing.uri(), false);
            check.route("awaiting proxy", awaiting.uri(), true);
            System.out.println("awaiting proxy: " + awaiting.counts());
            System.out.println("pass-through proxy: " + passing.counts());
        } finally {
            server.shutdownNow();
        }
        System.out.println(check.failures == 0 ? "ALL CHECKS PASSED" : check.failures + " CHECK(S) FAILED");
        System.exit(check.failures == 0 ? 0 : 1);
    }

    private void route(String label, String uri, boolean waits) throws Exception {
        AtomicLong getMoreMaxTime = new AtomicLong(-1);
        CommandListener maxTime = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                if (event.getCommandName().equals("getMore") && event.getCommand().containsKey("maxTimeMS")) {
                    getMoreMaxTime.set(event.getCommand().getNumber("maxTimeMS").longValue());
                }
            }
        };
        String collection = "watched_" + label.replace(' ', '_').replace('-', '_');
        try (MongoClient watcher = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(uri)).addCommandListener(maxTime).build());
             MongoClient writer = MongoClients.create(uri)) {
            MongoCollection<Document> watched = watcher.getDatabase("proxy_check").getCollection(collection);
            MongoCollection<Document> written = writer.getDatabase("proxy_check").getCollection(collection);
            MongoCollection<Document> other = writer.getDatabase("proxy_check").getCollection(collection + "_other");
            written.insertOne(new Document("warm", true));
            other.insertOne(new Document("warm", true));
            try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> stream =
                         watched.watch().maxAwaitTime(AWAIT_MS, TimeUnit.MILLISECONDS).cursor()) {
                stream.tryNext(); // the first getMore: connections and classes warm
                List<Double> idle = new ArrayList<>();
                for (int i = 0; i < REPEATS; i++) {
                    long start = System.nanoTime();
                    ChangeStreamDocument<Document> event = stream.tryNext();
                    idle.add((System.nanoTime() - start) / 1e6);
                    expect(event == null, label + ": nothing written, tryNext() returns null");
                }
                System.out.printf(Locale.ROOT, "%-20s tryNext() with nothing written (maxAwaitTime %d ms, getMore"
                        + " maxTimeMS sent: %d): %s ms%n", label, AWAIT_MS, getMoreMaxTime.get(), format(idle));
                double medianIdle = new Stats(idle).median();
                if (waits) {
                    expect(medianIdle >= AWAIT_MS * 0.9 && medianIdle <= AWAIT_MS * 1.5,
                            label + ": an empty getMore is held about the await (" + Stats.format(medianIdle, 1) + " ms)");
                } else {
                    expect(medianIdle < AWAIT_MS * 0.2,
                            label + ": an empty getMore comes back at once (" + Stats.format(medianIdle, 1) + " ms)");
                }

                List<Double> untilEvent = new ArrayList<>();
                List<Double> afterWrite = new ArrayList<>();
                for (int i = 0; i < REPEATS; i++) {
                    long start = System.nanoTime();
                    CompletableFuture<Long> write = CompletableFuture.supplyAsync(() -> {
                        sleep(WRITE_AFTER_MS);
                        written.insertOne(new Document("n", 1));
                        return System.nanoTime();
                    });
                    ChangeStreamDocument<Document> event = stream.tryNext();
                    // Direct, the stand-in answers at once: ask again the way a non-waiting loop would.
                    while (event == null && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5)) {
                        sleep(1);
                        event = stream.tryNext();
                    }
                    long returned = System.nanoTime();
                    long writeReturned = write.get(10, TimeUnit.SECONDS);
                    expect(event != null, label + ": the write's event arrives");
                    untilEvent.add((returned - start) / 1e6);
                    afterWrite.add((returned - writeReturned) / 1e6);
                }
                System.out.printf(Locale.ROOT, "%-20s write %d ms into the wait: event after %s ms, %s ms after the"
                        + " write returned%n", label, WRITE_AFTER_MS, format(untilEvent), format(afterWrite));
                double medianAfter = new Stats(afterWrite).median();
                expect(medianAfter < 50, label + ": the event follows the write promptly (" + Stats.format(medianAfter, 1)
                        + " ms after it, the await being " + AWAIT_MS + " ms)");

                if (waits) {
                    List<Double> otherWrite = new ArrayList<>();
                    for (int i = 0; i < REPEATS; i++) {
                        long start = System.nanoTime();
                        CompletableFuture<Void> write = CompletableFuture.runAsync(() -> {
                            sleep(WRITE_AFTER_MS);
                            other.insertOne(new Document("n", 1));
                        });
                        ChangeStreamDocument<Document> event = stream.tryNext();
                        otherWrite.add((System.nanoTime() - start) / 1e6);
                        write.get(10, TimeUnit.SECONDS);
                        expect(event == null, label + ": a write to another collection is no event");
                    }
                    System.out.printf(Locale.ROOT, "%-20s write to another collection %d ms into the wait: tryNext()"
                            + " returned null after %s ms%n", label, WRITE_AFTER_MS, format(otherWrite));
                    double medianOther = new Stats(otherWrite).median();
                    expect(medianOther >= AWAIT_MS * 0.9, label + ": woken by an unrelated write, the getMore waits on"
                            + " to the await's end (" + Stats.format(medianOther, 1) + " ms)");
                }
            }
        }
    }

    private void expect(boolean holds, String what) {
        if (!holds) {
            failures++;
            System.out.println("FAILED: " + what);
        }
    }

    private static String format(List<Double> millis) {
        StringBuilder text = new StringBuilder();
        for (double value : millis) {
            text.append(text.length() == 0 ? "" : ", ").append(Stats.format(value, 1));
        }
        return text.toString();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(interrupted);
        }
    }
}
