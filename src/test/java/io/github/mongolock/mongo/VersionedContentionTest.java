package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.eq;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.mongodb.client.MongoCollection;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many writers on one counter through {@link VersionedCollection}, each increment a read-modify-write: threads in
 * this JVM, a second OS process, racing inserts. No update may be lost, and the reported attempts add up. Prints
 * its figures.
 */
@ExtendWith(MongoBackend.class)
class VersionedContentionTest {

    /** Enough attempts that a writer never gives up here: these tests count lost updates, not give-ups. */
    static final ConflictRetries PATIENT = new ConflictRetries(1_000, Duration.ofMillis(1), Duration.ofMillis(20));

    private static final Duration CHILD_LIMIT = Duration.ofSeconds(60);

    private final TestMongo mongo;
    private String database;
    private MongoCollection<Document> counters;
    private VersionedCollection versioned;

    VersionedContentionTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void counter() {
        database = mongo.freshDatabase();
        counters = mongo.collection(database, "counters");
        versioned = VersionedCollection.of(counters).withRetries(PATIENT);
        counters.insertOne(new Document("_id", "hits").append("count", 0L)); // no version yet: version 0
    }

    static Document increment(Document counter) {
        return counter.append("count", counter.getLong("count") + 1);
    }

    @Test
    void eightThreadsIncrementingOneCounterLoseNoUpdate() throws Exception {
        int threads = 8;
        int perThread = 200;
        AtomicLong changeCalls = new AtomicLong();
        AtomicLong attempts = new AtomicLong();
        long started = System.nanoTime();
        runTogether(threads, () -> {
            for (int update = 0; update < perThread; update++) {
                attempts.addAndGet(versioned.update("hits", counter -> {
                    changeCalls.incrementAndGet();
                    return increment(counter);
                }).orElseThrow().attempts());
            }
        });
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        int updates = threads * perThread;
        Document counter = counters.find(eq("_id", "hits")).first();
        System.out.printf("[versioned contention] threads=%d updates=%d attempts=%d conflicts retried=%d (%.2f attempts"
                        + " per update) in %d ms%n", threads, updates, attempts.get(), attempts.get() - updates,
                (double) attempts.get() / updates, millis);
        assertEquals(updates, counter.getLong("count"), "every increment counted once: no update lost");
        assertEquals(updates, counter.get("version", Number.class).longValue(), "one version step per stored update");
        assertTrue(attempts.get() >= updates, "attempts " + attempts.get() + " < updates " + updates);
        assertEquals(changeCalls.get(), attempts.get(), "the change ran exactly once per reported attempt");
    }

    /** Rounds of eight writers inserting-or-incrementing one absent counter at once: one insert each, the rest retried. */
    @Test
    void racingInsertsOfAnAbsentDocumentCreateItOnce() throws Exception {
        int threads = 8;
        int rounds = 15;
        AtomicLong attempts = new AtomicLong();
        AtomicLong inserts = new AtomicLong();
        for (int round = 0; round < rounds; round++) {
            String id = "new-" + round;
            runTogether(threads, () -> {
                VersionedUpdate done = versioned.updateOrInsert(id, counter -> counter.map(VersionedContentionTest::increment)
                        .orElseGet(() -> new Document("count", 1L)));
                attempts.addAndGet(done.attempts());
                if (done.inserted()) {
                    inserts.incrementAndGet();
                }
            });
            Document counter = counters.find(eq("_id", id)).first();
            assertEquals(threads, counter.getLong("count"), "round " + round + ": one insert and " + (threads - 1)
                    + " increments, none lost");
            assertEquals(threads, counter.getLong("version"));
        }
        System.out.printf("[versioned insert race] rounds=%d writers per round=%d inserts=%d attempts=%d conflicts"
                + " retried=%d%n", rounds, threads, inserts.get(), attempts.get(), attempts.get() - rounds * threads);
        assertEquals(rounds, inserts.get(), "exactly one writer inserted each document");
        assertTrue(attempts.get() >= rounds * threads);
    }

    /** This JVM's threads and a child JVM increment one counter at the same time: the total is exact. */
    @Test
    void twoProcessesIncrementingOneCounterLoseNoUpdate(@TempDir Path work) throws Exception {
        int childUpdates = 400;
        int threads = 2;
        int perThread = 200;
        Path console = work.resolve("child.log");
        Process child = startChild(console, childUpdates);
        try {
            awaitLine(child, console, "ready");
            AtomicLong attempts = new AtomicLong();
            long started = System.nanoTime();
            try (Writer go = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8)) {
                go.write("go\n");
            }
            runTogether(threads, () -> {
                for (int update = 0; update < perThread; update++) {
                    attempts.addAndGet(versioned.update("hits", VersionedContentionTest::increment).orElseThrow().attempts());
                }
            });
            boolean childAliveWhenParentDone = child.isAlive();
            if (!child.waitFor(CHILD_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
                fail("the child JVM did not finish its " + childUpdates + " updates within " + CHILD_LIMIT + "; its output:\n"
                        + Files.readString(console));
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertEquals(0, child.exitValue(), "child JVM failed:\n" + Files.readString(console));
            long childAttempts = Long.parseLong(lineStartingWith(console, "attempts=").orElseThrow(
                    () -> new AssertionError("the child printed no attempts:\n" + readQuietly(console)))
                    .substring("attempts=".length()));

            int updates = childUpdates + threads * perThread;
            Document counter = counters.find(eq("_id", "hits")).first();
            System.out.printf("[versioned two processes] child JVM updates=%d attempts=%d; this JVM threads=%d updates=%d"
                            + " attempts=%d; total updates=%d, counter=%d, version=%d, in %d ms (child still running when"
                            + " this JVM finished: %s)%n", childUpdates, childAttempts, threads, threads * perThread,
                    attempts.get(), updates, counter.getLong("count"), counter.get("version", Number.class).longValue(),
                    millis, childAliveWhenParentDone);
            assertEquals(updates, counter.getLong("count"), "every increment of both processes counted once");
            assertEquals(updates, counter.get("version", Number.class).longValue());
            assertTrue(childAttempts >= childUpdates && attempts.get() >= threads * perThread);
        } finally {
            child.destroyForcibly();
        }
    }

    private Process startChild(Path console, int updates) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                // Surefire hands tests a manifest-only jar; the real class path is in its own property.
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                VersionedCounterProcess.class.getName(), mongo.uri(), database, "counters", "hits",
                Integer.toString(updates)));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile())).start();
    }

    private static void awaitLine(Process child, Path console, String line) throws Exception {
        long deadline = System.nanoTime() + CHILD_LIMIT.toNanos();
        while (lineStartingWith(console, line).isEmpty()) {
            if (!child.isAlive() || System.nanoTime() > deadline) {
                fail("the child JVM never printed \"" + line + "\" (alive: " + child.isAlive() + "); its output:\n"
                        + readQuietly(console));
            }
            Thread.sleep(20);
        }
    }

    private static Optional<String> lineStartingWith(Path console, String start) throws IOException {
        return Files.exists(console) ? Files.readAllLines(console).stream().filter(line -> line.startsWith(start)).findFirst()
                : Optional.empty();
    }

    private static String readQuietly(Path console) {
        try {
            return Files.readString(console);
        } catch (IOException unreadable) {
            return "(unreadable: " + unreadable + ")";
        }
    }

    /** Runs {@code work} on {@code threads} threads released together; rethrows the first failure. */
    private static void runTogether(int threads, Runnable work) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int thread = 0; thread < threads; thread++) {
                running.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    work.run();
                    return null;
                }));
            }
            for (Future<?> each : running) {
                each.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
