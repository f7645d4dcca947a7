package io.github.mongolock.mongo;

import static io.github.mongolock.testing.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoSocketReadException;
import com.mongodb.ServerAddress;
import com.mongodb.ServerCursor;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.UpdateDescription;
import io.github.mongolock.core.ReleaseFeed;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The change-stream feed against a scripted server (issue 11): which errors it resumes from, which
 * turn it off, lost history and closed cursors, what an empty answer costs, and which events it reads.
 */
class MongoReleaseFeedTest {

    private final List<MongoReleaseFeed> feeds = new ArrayList<>();
    private final ScriptedStreams streams = new ScriptedStreams();
    private final RecordingListener listener = new RecordingListener();

    @AfterEach
    void closeFeeds() {
        feeds.forEach(MongoReleaseFeed::close);
    }

    private MongoReleaseFeed feed(long maxAwaitMs) {
        MongoReleaseFeed feed = new MongoReleaseFeed(streams, "test.locks", "test-feed", maxAwaitMs);
        feeds.add(feed);
        return feed;
    }

    private static MongoCommandException commandError(int code, String name) {
        return new MongoCommandException(new BsonDocument("ok", new BsonInt32(0)).append("code", new BsonInt32(code))
                .append("codeName", new BsonString(name)).append("errmsg", new BsonString(name + " (scripted)")),
                new ServerAddress("127.0.0.1", 27017));
    }

    private static BsonDocument token(int n) {
        return new BsonDocument("_data", new BsonString("token-" + n));
    }

    /** An update event as MongoDB sends it: described, keyed by _id. */
    private static ChangeStreamDocument<Document> released(String name, int token) {
        return new ChangeStreamDocument<>("update", token(token), null, null, null, null, null,
                new BsonDocument("_id", new BsonString(name)), null,
                new UpdateDescription(List.of(), new BsonDocument("holds", new BsonInt32(0))), null, null, null, null, null);
    }

    /** A semaphore's write that may let a waiter in, as MongoDB describes it: keyed by the document _id, releasedAt set. */
    private static ChangeStreamDocument<Document> permitsGivenBack(String name, int token) {
        return new ChangeStreamDocument<>("update", token(token), null, null, null, null, null,
                new BsonDocument("_id", new BsonDocument("mongolock", new BsonString("permits")).append("name", new BsonString(name))),
                null, new UpdateDescription(List.of(), new BsonDocument("releasedAt", new BsonInt32(0))), null, null, null, null,
                null);
    }

    @Test
    void permitsGivenBackReachTheListenerAsASemaphoreNeverAsALockOfTheSameName() throws Exception {
        streams.script(() -> new ScriptedCursor().then(permitsGivenBack("export", 1)).then(released("export", 2)));
        MongoReleaseFeed feed = feed(1_000);
        feed.start(listener);
        await(() -> listener.names.contains("export"), "the lock's release");
        assertEquals(List.of("export"), listener.permits, "the semaphore's notice, told apart from the lock's");
        assertEquals(List.of("export"), listener.names, "the lock's notice, told apart from the semaphore's");
        String pipeline = streams.pipelines.get(0).toString();
        assertTrue(pipeline.contains("documentKey._id.mongolock") && pipeline.contains("updateDescription.updatedFields.releasedAt"),
                "the server keeps only semaphore writes that set releasedAt: " + pipeline);
    }

    @Test
    void transientErrorsAreResumedFromThePostBatchTokenAndTheStatusSaysSo() throws Exception {
        streams.script(() -> new ScriptedCursor().batchToken(token(7)).then(released("a", 7))
                .thenFail(commandError(11602, "InterruptedDueToReplStateChange")));
        streams.script(() -> new ScriptedCursor().thenFail(new MongoSocketReadException("connection reset",
                new ServerAddress("127.0.0.1", 27017))));
        streams.script(() -> new ScriptedCursor().then(released("b", 8)));
        MongoReleaseFeed feed = feed(1_000);
        feed.start(listener);
        await(() -> listener.names.contains("b"), "the stream resumed after an election and a reset");
        assertEquals(List.of("a", "b"), listener.names);
        assertEquals(ReleaseFeed.Status.PUSHING, feed.status());
        assertEquals(List.of("none", "token-7", "token-7"), streams.resumedFrom(), "resumed after the post-batch token");
        assertEquals(0, listener.missed.get(), "a resumed stream misses nothing");
    }

    @Test
    void whileResumingTheStatusIsReconnecting() throws Exception {
        streams.script(() -> new ScriptedCursor().thenFail(commandError(10107, "NotWritablePrimary")));
        AtomicBoolean allowed = new AtomicBoolean();
        streams.scriptForever(() -> allowed.get() ? new ScriptedCursor() : new ScriptedCursor().thenFail(
                commandError(91, "ShutdownInProgress")));
        MongoReleaseFeed feed = feed(1_000);
        feed.start(listener);
        await(() -> feed.status() == ReleaseFeed.Status.RECONNECTING, "reconnecting");
        allowed.set(true);
        await(() -> feed.status() == ReleaseFeed.Status.PUSHING, "pushing again");
    }

    @Test
    void lostHistoryStartsAFreshStreamAndEveryWaiterLooksOnce() throws Exception {
        streams.script(() -> new ScriptedCursor().batchToken(token(3)).then(released("a", 3))
                .thenFail(commandError(286, "ChangeStreamHistoryLost")));
        streams.script(() -> new ScriptedCursor().then(released("b", 4)));
        MongoReleaseFeed feed = feed(1_000);
        feed.start(listener);
        await(() -> listener.names.contains("b"), "a fresh stream");
        assertEquals(List.of("none", "none"), streams.resumedFrom(), "not resumed with the lost token");
        assertEquals(1, listener.missed.get(), "releases in the gap are caught by one poll");
    }

    @Test
    void aCursorTheServerClosedIsReopenedWithoutSpinning() throws Exception {
        streams.scriptForever(() -> new ScriptedCursor().closedByServer());
        MongoReleaseFeed feed = feed(1_000);
        feed.start(listener);
        Thread.sleep(1_000);
        int opens = streams.opened.get();
        System.out.printf("[feed] a server that closes every cursor at once: %d opens in 1 s%n", opens);
        assertTrue(opens >= 2 && opens <= 6, "reopened with backoff (100, 200, 400 ms...), not in a loop: " + opens);
        assertTrue(listener.missed.get() >= 1, "each fresh stream makes waiters look once");
    }

    @Test
    void anInvalidateEventReopensAFreshStream() throws Exception {
        streams.script(() -> new ScriptedCursor().then(new ChangeStreamDocument<>("invalidate", token(9), null, null,
                null, null, null, null, null, null, null, null, null, null, null)));
        streams.script(() -> new ScriptedCursor().then(released("after-drop", 10)));
        MongoReleaseFeed feed = feed(1_000);
        feed.start(listener);
        await(() -> listener.names.contains("after-drop"), "reopened after the drop");
        assertEquals("none", streams.resumedFrom().get(1), "an invalidated stream cannot be resumed");
    }

    @Test
    void onlyAServerWithoutChangeStreamsTurnsItOff() throws Exception {
        streams.script(() -> new ScriptedCursor().thenFail(commandError(40573, "Location40573")));
        MongoReleaseFeed feed = feed(1_000);
        feed.start(listener);
        await(() -> feed.status() == ReleaseFeed.Status.UNAVAILABLE, "unavailable");
        Thread.sleep(300);
        assertEquals(1, streams.opened.get(), "never asked again");
    }

    @Test
    void aServerThatDoesNotWaitCostsLittleWhileNobodyWaitsAndIsFollowedClosely() throws Exception {
        AtomicInteger getMores = new AtomicInteger();
        streams.scriptForever(() -> new ScriptedCursor().countingEmptyAnswers(getMores));
        MongoReleaseFeed feed = feed(1_000);
        listener.waiting = false;
        feed.start(listener);
        Thread.sleep(2_000);
        int idle = getMores.getAndSet(0);
        listener.waiting = true;
        feed.start(listener); // a waiter arrives: the idle pause is cut short
        Thread.sleep(500);
        int busy = getMores.get();
        System.out.printf("[feed] server answering at once: %.1f getMore/s while nobody waits, %.0f/s while someone does%n",
                idle / 2.0, busy / 0.5);
        assertTrue(idle / 2.0 < 20, "under 20 getMore/s per idle manager: " + idle / 2.0);
        assertTrue(busy / 0.5 > 50, "followed closely while someone waits: " + busy / 0.5);
    }

    @Test
    void eventsWithoutAnUpdateDescriptionSwitchToTheUpdatedDocument() throws Exception {
        ChangeStreamDocument<Document> undescribed = new ChangeStreamDocument<>("update", token(1), null, null,
                null, null, null, null, null, null, null, null, null, null, null);
        ChangeStreamDocument<Document> looked = new ChangeStreamDocument<>("update", token(2), null, null,
                null, new Document("_id", "job").append("holds", 0), null, null, null, null, null, null, null, null, null);
        streams.script(() -> new ScriptedCursor().then(undescribed));
        streams.script(() -> new ScriptedCursor().then(looked));
        MongoReleaseFeed feed = feed(1_000);
        feed.start(listener);
        await(() -> listener.names.contains("job"), "read from the looked-up document");
        assertEquals(List.of(false, true), streams.lookups);
        assertTrue(streams.pipelines.get(0).toString().contains("updateDescription.updatedFields.holds"),
                "MongoDB filters on the update description: " + streams.pipelines.get(0));
        assertTrue(streams.pipelines.get(1).toString().contains("fullDocument.holds"), streams.pipelines.get(1).toString());
        assertEquals(1, listener.missed.get());
    }

    @Test
    void theServersWaitStaysBelowTheOperationTimeout() {
        assertEquals(1_000, MongoReleaseFeed.maxAwaitMs(null));
        assertEquals(1_000, MongoReleaseFeed.maxAwaitMs(10_000L));
        assertEquals(400, MongoReleaseFeed.maxAwaitMs(800L));
        assertEquals(1, MongoReleaseFeed.maxAwaitMs(1L));
    }

    private static final class RecordingListener implements ReleaseFeed.Listener {
        final List<String> names = new CopyOnWriteArrayList<>();
        final List<String> permits = new CopyOnWriteArrayList<>();
        final AtomicInteger missed = new AtomicInteger();
        volatile boolean waiting = true;

        @Override
        public void released(String name, String queueHead) {
            names.add(name);
        }

        @Override
        public void permitsReleased(String name, String queueHead) {
            permits.add(name);
        }

        @Override
        public void missedSome() {
            missed.incrementAndGet();
        }

        @Override
        public boolean anyoneWaiting() {
            return waiting;
        }
    }

    /** Hands out scripted cursors in order, the last one forever if so scripted; records how each was opened. */
    private static final class ScriptedStreams implements MongoReleaseFeed.Streams {
        private final Deque<Supplier<ScriptedCursor>> script = new ArrayDeque<>();
        private Supplier<ScriptedCursor> forever;
        final AtomicInteger opened = new AtomicInteger();
        final List<String> resumed = new CopyOnWriteArrayList<>();
        final List<Boolean> lookups = new CopyOnWriteArrayList<>();
        final List<List<Bson>> pipelines = new CopyOnWriteArrayList<>();

        synchronized void script(Supplier<ScriptedCursor> cursor) {
            script.add(cursor);
        }

        synchronized void scriptForever(Supplier<ScriptedCursor> cursor) {
            forever = cursor;
        }

        List<String> resumedFrom() {
            return resumed;
        }

        @Override
        public synchronized MongoChangeStreamCursor<ChangeStreamDocument<Document>> open(List<Bson> pipeline, boolean lookup,
                                                                                     BsonDocument resumeAfter, long maxAwaitMs) {
            opened.incrementAndGet();
            resumed.add(resumeAfter == null ? "none" : resumeAfter.getString("_data").getValue());
            lookups.add(lookup);
            pipelines.add(pipeline);
            Supplier<ScriptedCursor> next = script.poll();
            if (next == null) {
                next = forever != null ? forever : ScriptedCursor::new;
            }
            return next.get();
        }
    }

    /** A cursor that answers events, then fails or goes quiet; empty answers come at once (a server that does not wait). */
    private static final class ScriptedCursor implements MongoChangeStreamCursor<ChangeStreamDocument<Document>> {
        private final Deque<ChangeStreamDocument<Document>> events = new ArrayDeque<>();
        private RuntimeException failure;
        private BsonDocument token;
        private boolean closedByServer;
        private AtomicInteger emptyAnswers;

        ScriptedCursor then(ChangeStreamDocument<Document> event) {
            events.add(event);
            return this;
        }

        ScriptedCursor thenFail(RuntimeException failure) {
            this.failure = failure;
            return this;
        }

        ScriptedCursor batchToken(BsonDocument token) {
            this.token = token;
            return this;
        }

        ScriptedCursor closedByServer() {
            closedByServer = true;
            return this;
        }

        ScriptedCursor countingEmptyAnswers(AtomicInteger counter) {
            emptyAnswers = counter;
            return this;
        }

        @Override
        public ChangeStreamDocument<Document> tryNext() {
            ChangeStreamDocument<Document> event = events.poll();
            if (event != null) {
                return event;
            }
            if (failure != null) {
                throw failure;
            }
            if (emptyAnswers != null) {
                emptyAnswers.incrementAndGet();
            } else if (!closedByServer) {
                try {
                    Thread.sleep(20); // an idle server that does wait a little
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new com.mongodb.MongoInterruptedException("closing", interrupted);
                }
            }
            return null;
        }

        @Override
        public BsonDocument getResumeToken() {
            return token;
        }

        @Override
        public ServerCursor getServerCursor() {
            return closedByServer ? null : new ServerCursor(42, new ServerAddress("127.0.0.1", 27017));
        }

        @Override
        public ServerAddress getServerAddress() {
            return new ServerAddress("127.0.0.1", 27017);
        }

        @Override
        public void close() {
        }

        @Override
        public boolean hasNext() {
            throw new UnsupportedOperationException("the feed only calls tryNext");
        }

        @Override
        public ChangeStreamDocument<Document> next() {
            throw new UnsupportedOperationException("the feed only calls tryNext");
        }

        @Override
        public int available() {
            return events.size();
        }
    }
}
