package io.github.mongolock.mongo;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.FullDocument;
import com.mongodb.client.model.changestream.OperationType;
import io.github.mongolock.core.ReleaseFeed;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * One MongoDB change stream per manager on the lock collection, delivering the names of locks that
 * an update has just left free ({@code holds: 0}), whoever released them, and of semaphores whose permits were just
 * given back. Runs on one daemon thread,
 * started on first use.
 *
 * <p><b>What it asks for.</b> MongoDB describes every update ({@code updateDescription}): the server
 * keeps only updates that set {@code holds} to 0 and the name comes from {@code documentKey._id}, so a
 * renewal costs a watching manager nothing. A server whose events carry no update description (the
 * test stand-in; some compatible services) is detected on its first such event, and the feed then asks
 * for {@code fullDocument: updateLookup} and filters on {@code fullDocument.holds}, logged once.
 *
 * <p><b>What it survives.</b>
 * <ul>
 *   <li>Elections, rolling restarts, maintenance windows, network errors, timeouts: the stream is
 *       resumed from the post-batch resume token with backoff (100 ms doubling to 30 s), status
 *       {@code RECONNECTING}, warned once, and back to {@code PUSHING} when it works again.</li>
 *   <li>Lost history (286, 280, 260), an invalidated or server-closed cursor (the collection or
 *       database dropped or renamed): a fresh stream, and every waiter looks once
 *       ({@link Listener#missedSome()}), since releases may have gone unseen.</li>
 *   <li>A server that answers {@code getMore} at once instead of waiting (the stand-in, a throttled
 *       Cosmos DB stream): while somebody waits, it asks again after 3 ms; while nobody waits, the pause
 *       doubles up to one second, and a new waiter cuts it short.</li>
 * </ul>
 * Only a server that says change streams are not available (a standalone {@code mongod}, 40573; an
 * unknown {@code $changeStream} stage, 40324; {@code CommandNotSupported}, 115; {@code CommandNotFound}, 59;
 * {@code NotImplemented}, 238; not authorised, 13)
 * turns it off for good, logged once: waiters poll. The server's wait ({@code maxAwaitTime}) stays
 * below the collection's operation timeout, so an idle {@code getMore} never times out.
 */
public final class MongoReleaseFeed implements ReleaseFeed {

    private static final System.Logger LOG = System.getLogger(MongoReleaseFeed.class.getName());
    private static final long MAX_AWAIT_MS = 1_000;
    private static final long PAUSE_WHILE_WAITED_FOR_MS = 3;
    private static final long MAX_IDLE_PAUSE_MS = 1_000;
    private static final Duration MAX_RECONNECT_PAUSE = Duration.ofSeconds(30);
    /** The {@code _id.mongolock} of the documents whose given-back holds wake waiters: semaphores, read-write locks. */
    private static final Document KINDS = new Document("$in", List.of(PermitDocuments.KIND, ReadWriteDocuments.RW_KIND));
    private static final Set<Integer> UNSUPPORTED = Set.of(40573, 40324, 115, 59, 238, 13);
    private static final Set<Integer> HISTORY_LOST = Set.of(286, 280, 260);

    /** Opens a change stream on the lock collection; a seam for tests that script the server's answers. */
    interface Streams {
        /**
         * @param lookup      whether to ask for {@code fullDocument: updateLookup} (servers without update descriptions)
         * @param resumeAfter the token to resume after, or null for a stream starting now
         */
        MongoChangeStreamCursor<ChangeStreamDocument<Document>> open(List<Bson> pipeline, boolean lookup,
                                                                     BsonDocument resumeAfter, long maxAwaitMs);
    }

    private final Streams streams;
    private final String namespace;
    private final String threadName;
    private final long maxAwaitMs;
    private final Object pause = new Object();
    private volatile Status status = Status.IDLE;
    /** Guarded by {@link #pause}. */
    private boolean nudged;
    private Thread thread;

    public MongoReleaseFeed(MongoCollection<Document> locks, String threadName) {
        this(collectionStreams(Objects.requireNonNull(locks, "locks")), locks.getNamespace().getFullName(), threadName,
                maxAwaitMs(locks.getTimeout(TimeUnit.MILLISECONDS)));
    }

    MongoReleaseFeed(Streams streams, String namespace, String threadName, long maxAwaitMs) {
        this.streams = streams;
        this.namespace = namespace;
        this.threadName = Objects.requireNonNull(threadName, "threadName");
        this.maxAwaitMs = maxAwaitMs;
    }

    private static Streams collectionStreams(MongoCollection<Document> locks) {
        return (pipeline, lookup, resumeAfter, maxAwaitMs) -> {
            var stream = locks.watch(pipeline).maxAwaitTime(maxAwaitMs, TimeUnit.MILLISECONDS);
            if (lookup) {
                stream = stream.fullDocument(FullDocument.UPDATE_LOOKUP);
            }
            return (resumeAfter == null ? stream : stream.resumeAfter(resumeAfter)).cursor();
        };
    }

    /** The server's wait for events stays below the operation timeout, or every idle getMore would time out. */
    static long maxAwaitMs(Long operationTimeoutMs) {
        return operationTimeoutMs == null || operationTimeoutMs == 0 ? MAX_AWAIT_MS
                : Math.max(1, Math.min(MAX_AWAIT_MS, operationTimeoutMs / 2));
    }

    @Override
    public synchronized void start(Listener listener) {
        if (status == Status.IDLE) {
            status = Status.STARTING;
            thread = new Thread(() -> follow(listener), threadName);
            thread.setDaemon(true);
            thread.start();
        } else {
            synchronized (pause) {
                nudged = true; // someone waits now: stop idling
                pause.notifyAll();
            }
        }
    }

    @Override
    public Status status() {
        return status;
    }

    /**
     * Updates that left a lock free, or gave permits back (a semaphore's writes that may let a waiter in set
     * {@code releasedAt}): by the update description, or (lookup) by the document as it is now.
     */
    static List<Bson> pipeline(boolean lookup) {
        Document match = new Document("operationType", "update");
        if (lookup) {
            match.append("$or", List.of(new Document("fullDocument." + LockDocument.HOLDS, 0),
                    new Document("fullDocument." + LockDocument.ID + ".mongolock", KINDS)));
        } else {
            // Events without a description pass too, so that a server lacking them is noticed, not silent.
            match.append("$or", List.of(
                    new Document("updateDescription.updatedFields." + LockDocument.HOLDS, 0),
                    new Document("documentKey." + LockDocument.ID + ".mongolock", KINDS)
                            .append("updateDescription.updatedFields." + LockDocument.RELEASED_AT, new Document("$exists", true)),
                    new Document("updateDescription", new Document("$exists", false))));
        }
        return List.of(new Document("$match", match));
    }

    private void follow(Listener listener) {
        BsonDocument resumeAfter = null;
        boolean lookup = false;
        boolean fresh = false;
        long reconnectPauseMs = 100;
        boolean warned = false;
        while (status != Status.CLOSED) {
            try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor =
                         streams.open(pipeline(lookup), lookup, resumeAfter, maxAwaitMs)) {
                status = Status.PUSHING;
                if (warned) {
                    LOG.log(Level.INFO, "mongolock push wake-up works again on " + namespace);
                    warned = false;
                }
                if (fresh) {
                    listener.missedSome(); // the new stream starts now: releases in the gap were not seen
                    fresh = false;
                }
                long idlePauseMs = 0;
                while (status == Status.PUSHING) {
                    long askedAt = System.nanoTime();
                    ChangeStreamDocument<Document> event = cursor.tryNext();
                    BsonDocument postBatch = cursor.getResumeToken();
                    if (postBatch != null) {
                        resumeAfter = postBatch;
                    }
                    if (event == null) {
                        if (cursor.getServerCursor() == null) {
                            throw new StreamEnded("the server closed the change stream's cursor");
                        }
                        reconnectPauseMs = 100; // a stream that answers: the next outage backs off from the start
                        idlePauseMs = pauseAfterEmptyAnswer(listener, askedAt, idlePauseMs);
                        continue;
                    }
                    idlePauseMs = 0;
                    reconnectPauseMs = 100;
                    if (event.getOperationType() == OperationType.INVALIDATE) {
                        throw new StreamEnded("the change stream was invalidated (collection dropped or renamed)");
                    }
                    if (!lookup && event.getUpdateDescription() == null) {
                        LOG.log(Level.INFO, "mongolock: change events on " + namespace + " carry no update description;"
                                + " push wake-up asks for the updated document instead (one lookup per update)");
                        lookup = true;
                        resumeAfter = null;
                        fresh = true;
                        break;
                    }
                    String name = lockName(event, lookup);
                    if (name != null) {
                        listener.released(name, lookup ? queueHead(event.getFullDocument()) : null);
                    } else {
                        notifyPermits(event, lookup, listener);
                    }
                }
            } catch (StreamEnded ended) {
                LOG.log(Level.DEBUG, "mongolock push wake-up reopens its change stream on {0}: {1}", namespace, ended.getMessage());
                resumeAfter = null;
                fresh = true;
                reconnectPauseMs = reconnectAfter(reconnectPauseMs, null);
            } catch (MongoCommandException refused) {
                if (status == Status.CLOSED) {
                    return;
                }
                if (UNSUPPORTED.contains(refused.getErrorCode())) {
                    status = Status.UNAVAILABLE;
                    LOG.log(Level.INFO, "mongolock push wake-up is unavailable on " + namespace + " ("
                            + refused.getErrorCode() + ": " + refused.getErrorMessage() + "; change streams need a replica set"
                            + " or sharded cluster and the changeStream privilege): waiters on locks held by other machines"
                            + " poll with backoff (10-500 ms) instead");
                    return;
                }
                if (HISTORY_LOST.contains(refused.getErrorCode())) {
                    resumeAfter = null; // the token is too old or invalid: start from now, one poll covers the gap
                    fresh = true;
                }
                reconnectPauseMs = reconnectAfter(reconnectPauseMs, warned ? null : refused);
                warned = true;
            } catch (InterruptedException | MongoInterruptedException closing) {
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
                reconnectPauseMs = reconnectAfter(reconnectPauseMs, warned ? null : lostConnection);
                warned = true;
            }
        }
    }

    /** The manager at the head of a looked-up lock's queue, or null when nobody is queued. */
    private static String queueHead(Document lock) {
        return lock != null && lock.get(LockDocument.QUEUE) instanceof List<?> queue && !queue.isEmpty()
                ? String.valueOf(queue.get(0)) : null;
    }

    /**
     * A semaphore's permits given back: by the update description (only writes that may let a waiter in set
     * {@code releasedAt}), or, looked up, a semaphore with room now, with its queue's head.
     */
    private static void notifyPermits(ChangeStreamDocument<Document> event, boolean lookup, Listener listener) {
        if (lookup) {
            Document semaphore = event.getFullDocument();
            if (semaphore != null && semaphore.get(LockDocument.ID) instanceof Document id
                    && id.get("mongolock") instanceof String kind && id.get("name") instanceof String name
                    && semaphore.get(PermitDocuments.USED) instanceof Number used
                    && semaphore.get(PermitDocuments.LIMIT) instanceof Number limit && used.longValue() < limit.longValue()) {
                notifyKind(kind, name, queueHead(semaphore), listener);
            }
            return;
        }
        BsonDocument key = event.getDocumentKey();
        if (key != null && key.get(LockDocument.ID) instanceof BsonDocument id
                && id.get("mongolock") instanceof BsonString kind && id.get("name") instanceof BsonString name) {
            notifyKind(kind.getValue(), name.getValue(), null, listener);
        }
    }

    private static void notifyKind(String kind, String name, String queueHead, Listener listener) {
        if (PermitDocuments.KIND.equals(kind)) {
            listener.permitsReleased(name, queueHead);
        } else if (ReadWriteDocuments.RW_KIND.equals(kind)) {
            listener.readWriteReleased(name, queueHead);
        }
    }

    private static String lockName(ChangeStreamDocument<Document> event, boolean lookup) {
        if (lookup) {
            Document lock = event.getFullDocument();
            return lock != null && lock.get(LockDocument.ID) instanceof String name ? name : null;
        }
        BsonDocument key = event.getDocumentKey();
        BsonValue id = key == null ? null : key.get(LockDocument.ID);
        return id instanceof BsonString name ? name.getValue() : null;
    }

    /**
     * MongoDB waits up to maxAwaitTime for an event; an empty answer well before that comes from a
     * server that does not wait, and asking again at once would be a busy loop.
     *
     * @return the pause to start from after the next empty answer
     */
    private long pauseAfterEmptyAnswer(Listener listener, long askedAtNanos, long lastPauseMs) throws InterruptedException {
        if (System.nanoTime() - askedAtNanos >= TimeUnit.MILLISECONDS.toNanos(maxAwaitMs / 2)) {
            return 0; // the server did wait: no pause needed
        }
        long pauseMs = listener.anyoneWaiting() ? PAUSE_WHILE_WAITED_FOR_MS
                : Math.min(Math.max(lastPauseMs * 2, 50), MAX_IDLE_PAUSE_MS);
        synchronized (pause) {
            if (!nudged) {
                pause.wait(pauseMs);
            }
            boolean cutShort = nudged;
            nudged = false;
            return cutShort ? 0 : pauseMs;
        }
    }

    /** @param cause logged as a warning when given (once per outage) */
    private long reconnectAfter(long pauseMs, RuntimeException cause) {
        synchronized (this) {
            if (status == Status.CLOSED) {
                return pauseMs;
            }
            status = Status.RECONNECTING;
        }
        if (cause != null) {
            LOG.log(Level.WARNING, "mongolock push wake-up lost its change stream on " + namespace
                    + " (" + cause.getMessage() + "); resuming with backoff, waiters poll meanwhile");
        }
        try {
            Thread.sleep(pauseMs);
        } catch (InterruptedException interrupted) {
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
            running.join(MAX_AWAIT_MS * 3);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The stream cannot go on (closed cursor, invalidate event): reopen without a resume token. */
    private static final class StreamEnded extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StreamEnded(String message) {
            super(message, null, false, false);
        }
    }
}
