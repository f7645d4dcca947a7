package io.github.mongolock.torture;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.max;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.mongodb.client.MongoCollection;
import io.github.mongolock.LockSession;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The torture's fenced counter outcomes that its short runs rarely meet, made to happen: a read that
 * finds a later token already registered ({@code STALE_READ}), and a later token arriving between the
 * read and the write ({@code FENCED}). The counter must take neither write.
 */
@ExtendWith(MongoBackend.class)
class CriticalSectionFencingTest {

    private static final String LOCK = WorkerSettings.lockName(0);
    private static final long LATER_TOKEN = 1_000;

    private final TestMongo mongo;
    private MongoLockManager locks;
    private MongoCollection<Document> counters;
    private HistoryWriter history;
    private Path historyFile;

    CriticalSectionFencingTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void counterAndManager(@TempDir Path directory) {
        String database = mongo.freshDatabase();
        counters = mongo.collection(database, WorkerSettings.COUNTERS_COLLECTION);
        counters.insertOne(new Document("_id", LOCK).append("value", 5L).append("writes", 5L).append("plain", 5L)
                .append("plainWrites", 5L).append(CriticalSection.FENCE, 0L));
        locks = MongoLockManager.builder().client(mongo.client()).database(database).build();
        historyFile = directory.resolve("w0.0.history");
        history = new HistoryWriter(historyFile);
    }

    @AfterEach
    void close() throws Exception {
        history.close();
        locks.close();
    }

    /** Every section works 100-300 ms: time enough for another "holder" to come between read and write. */
    private CriticalSection section() {
        WorkerSettings settings = new WorkerSettings(mongo.uri(), "unused", "w0.0", 1, 1, 30_000, 1_000, 1_000, 1,
                Long.MAX_VALUE, historyFile, 0, 1, 2, WorkerSettings.Workload.LOOP, 1);
        return new CriticalSection(settings, history, counters, Set.of(), owner -> false, 1);
    }

    private SectionRecord.WriteOutcome onlyOutcome() throws Exception {
        history.close();
        return HistoryReader.read("w0.0", historyFile, System.nanoTime()).sections().get(0).write();
    }

    @Test
    void aReadAfterALaterTokenIsAStaleReadAndWritesNothing() throws Exception {
        counters.updateOne(eq("_id", LOCK), max(CriticalSection.FENCE, LATER_TOKEN));
        CriticalSection section = section();
        LockSession session = locks.acquire(LOCK);
        section.finish(session, section.begin(session, System.nanoTime()));

        assertEquals(SectionRecord.WriteOutcome.STALE_READ, onlyOutcome());
        Document counter = counters.find(eq("_id", LOCK)).first();
        assertEquals(5L, counter.getLong("value"));
        assertEquals(5L, counter.getLong("writes"));
        assertEquals(LATER_TOKEN, counter.getLong(CriticalSection.FENCE));
        assertEquals(6L, counter.getLong("plain"), "the plain counter trusts isHeld() alone, and the lock was held");
    }

    @Test
    void aLaterTokenBetweenReadAndWriteFencesTheWriteOff() throws Exception {
        CriticalSection section = section();
        LockSession session = locks.acquire(LOCK);
        long token = session.fencingToken();
        // Another holder's fenced read, as soon as this section's read has registered its token.
        CompletableFuture<Void> later = CompletableFuture.runAsync(() -> {
            while (counters.find(eq("_id", LOCK)).first().getLong(CriticalSection.FENCE) != token) {
                CriticalSection.pause(1_000);
            }
            counters.updateOne(eq("_id", LOCK), max(CriticalSection.FENCE, LATER_TOKEN));
        });
        section.finish(session, section.begin(session, System.nanoTime()));
        later.get(10, TimeUnit.SECONDS);

        assertEquals(SectionRecord.WriteOutcome.FENCED, onlyOutcome());
        Document counter = counters.find(eq("_id", LOCK)).first();
        assertEquals(5L, counter.getLong("value"));
        assertEquals(5L, counter.getLong("writes"));
    }

    @Test
    void anUndisturbedSectionIsAccepted() throws Exception {
        CriticalSection section = section();
        LockSession session = locks.acquire(LOCK);
        section.finish(session, section.begin(session, System.nanoTime()));

        assertEquals(SectionRecord.WriteOutcome.ACCEPTED, onlyOutcome());
        Document counter = counters.find(eq("_id", LOCK)).first();
        assertEquals(new Document("_id", LOCK).append("value", 6L).append("writes", 6L).append("plain", 6L)
                .append("plainWrites", 6L).append(CriticalSection.FENCE, session.fencingToken()), counter);
    }
}
