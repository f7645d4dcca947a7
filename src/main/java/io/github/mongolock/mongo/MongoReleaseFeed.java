package io.github.mongolock.mongo;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.FullDocument;
import io.github.mongolock.core.ReleaseFeed;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.Document;

/**
 * One MongoDB change stream per manager on the lock collection, delivering the names of locks
 * that an update has just left free ({@code holds: 0}), whoever released them.
 *
 * <p>The stream matches {@code fullDocument.holds == 0} with {@code fullDocument: updateLookup}: the
 * lookup shows the lock as it is when the event is read, so a lock re-taken in the meantime wakes
 * nobody in vain. Renewals and acquisitions (which leave {@code holds > 0}) are filtered out by the
 * server. Change streams need a replica set or sharded cluster. When the server refuses them
 * (a standalone {@code mongod}), the feed says so once in the log and stays
 * {@link Status#UNAVAILABLE}: waiters keep polling. Network failures are retried with backoff,
 * resuming after the last event seen. Runs on one daemon thread, started on first use.
 */
public final class MongoReleaseFeed implements ReleaseFeed {

    private static final System.Logger LOG = System.getLogger(MongoReleaseFeed.class.getName());
    private static final List<Document> RELEASES = List.of(new Document("$match",
            new Document("operationType", "update").append("fullDocument." + MongoLockStore.HOLDS, 0)));
    private static final long MAX_AWAIT_MS = 1_000;
    private static final long EMPTY_ANSWER_WITHOUT_WAITING_NANOS = TimeUnit.MILLISECONDS.toNanos(MAX_AWAIT_MS / 2);
    private static final long EMPTY_ANSWER_PAUSE_MS = 3;
    private static final Duration MAX_RECONNECT_PAUSE = Duration.ofSeconds(30);

    private final MongoCollection<Document> locks;
    private final String threadName;
    private volatile Status status = Status.IDLE;
    private Thread thread;

    public MongoReleaseFeed(MongoCollection<Document> locks, String threadName) {
        this.locks = Objects.requireNonNull(locks, "locks");
        this.threadName = Objects.requireNonNull(threadName, "threadName");
    }

    @Override
    public synchronized void start(Consumer<String> released) {
        if (status != Status.IDLE) {
            return;
        }
        status = Status.STARTING;
        thread = new Thread(() -> follow(released), threadName);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public Status status() {
        return status;
    }

    private void follow(Consumer<String> released) {
        BsonDocument resumeAfter = null;
        long pauseMs = 100;
        boolean warned = false;
        while (status != Status.CLOSED) {
            try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> opened = open(resumeAfter)) {
                status = Status.PUSHING;
                if (warned) {
                    LOG.log(Level.INFO, "mongolock push wake-up works again on " + locks.getNamespace());
                    warned = false;
                }
                pauseMs = 100;
                while (status == Status.PUSHING) {
                    long askedAt = System.nanoTime();
                    ChangeStreamDocument<Document> event = opened.tryNext();
                    if (event == null) {
                        if (System.nanoTime() - askedAt < EMPTY_ANSWER_WITHOUT_WAITING_NANOS) {
                            // MongoDB waits up to maxAwaitTime for an event; an empty answer well before
                            // that means a server that does not wait, which would turn this loop into a
                            // busy loop: ask again a little later.
                            Thread.sleep(EMPTY_ANSWER_PAUSE_MS);
                        }
                        continue;
                    }
                    resumeAfter = event.getResumeToken();
                    Document lock = event.getFullDocument();
                    if (lock != null && lock.get(MongoLockStore.ID) instanceof String name) {
                        released.accept(name);
                    }
                }
            } catch (MongoCommandException refused) {
                if (status == Status.CLOSED) {
                    return;
                }
                if (resumeAfter != null && isResumeFailure(refused)) {
                    resumeAfter = null; // history gone: start from now, polling covers the gap
                    continue;
                }
                status = Status.UNAVAILABLE;
                LOG.log(Level.INFO, "mongolock push wake-up is unavailable on " + locks.getNamespace() + " ("
                        + refused.getErrorMessage() + "; change streams need a replica set): waiters on locks"
                        + " held by other machines poll with backoff (10-500 ms) instead");
                return;
            } catch (InterruptedException closing) {
                status = Status.CLOSED;
                return;
            } catch (IllegalStateException clientClosed) {
                // The application closed the MongoClient before the manager: nothing left to follow.
                status = Status.CLOSED;
                return;
            } catch (MongoException lostConnection) {
                if (status == Status.CLOSED) {
                    return;
                }
                pauseMs = reconnectAfter(pauseMs, lostConnection, warned);
                warned = true;
            }
        }
    }

    private MongoChangeStreamCursor<ChangeStreamDocument<Document>> open(BsonDocument resumeAfter) {
        var stream = locks.watch(RELEASES).fullDocument(FullDocument.UPDATE_LOOKUP)
                .maxAwaitTime(maxAwaitMs(), TimeUnit.MILLISECONDS);
        return (resumeAfter == null ? stream : stream.resumeAfter(resumeAfter)).cursor();
    }

    /** The server's wait for events stays below the collection's operation timeout, or every idle getMore would time out. */
    private long maxAwaitMs() {
        Long timeout = locks.getTimeout(TimeUnit.MILLISECONDS);
        return timeout == null || timeout == 0 ? MAX_AWAIT_MS : Math.max(1, Math.min(MAX_AWAIT_MS, timeout / 2));
    }

    private static boolean isResumeFailure(MongoCommandException refused) {
        // ChangeStreamHistoryLost (286) and ChangeStreamFatalError (280): the resume token is too old.
        return refused.getErrorCode() == 286 || refused.getErrorCode() == 280;
    }

    private long reconnectAfter(long pauseMs, RuntimeException cause, boolean alreadyWarned) {
        status = Status.RECONNECTING;
        if (!alreadyWarned) {
            LOG.log(Level.WARNING, "mongolock push wake-up lost its change stream on " + locks.getNamespace()
                    + " (" + cause.getMessage() + "); reconnecting, waiters poll meanwhile");
        }
        try {
            Thread.sleep(pauseMs);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            status = Status.CLOSED;
        }
        return Math.min(pauseMs * 2, MAX_RECONNECT_PAUSE.toMillis());
    }

    @Override
    public void close() {
        Thread running;
        synchronized (this) {
            status = Status.CLOSED;
            running = thread;
        }
        if (running == null) {
            return;
        }
        running.interrupt();
        try {
            running.join(TimeUnit.MILLISECONDS.toMillis(MAX_AWAIT_MS * 3));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
