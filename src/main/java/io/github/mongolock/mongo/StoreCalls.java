package io.github.mongolock.mongo;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.MongoServerException;
import com.mongodb.MongoSocketOpenException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.result.UpdateResult;
import io.github.mongolock.LockInterruptedException;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.LockStoreException;
import io.github.mongolock.core.LockArguments;
import java.util.function.Supplier;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * Every request {@link MongoLockStore} sends, and what its failures become. Before the first one the server
 * is asked what it is (once), and a server where locking is unsafe is refused; then the driver's exceptions
 * are translated into the lock API's: {@link LockStoreException} saying whether the request may have been
 * applied ({@code outcomeUnknown}) and what to do, {@link LockInterruptedException} keeping the interrupt
 * flag, and each failure counted in the metrics, except the duplicate key that is the protocol's "held".
 * Thread-safe.
 */
final class StoreCalls {

    private final LockMetrics metrics;
    private final String namespace;
    /** Where the server is asked what it is; null when the store was given a collection alone. */
    private final MongoDatabase database;
    /** Null until the server was asked (before the first lock operation). */
    private volatile ServerProfile server;

    /** @param server what the store talks to, or null to ask {@code database} before the first call */
    StoreCalls(String namespace, LockMetrics metrics, MongoDatabase database, ServerProfile server) {
        this.namespace = namespace;
        this.metrics = metrics;
        this.database = database;
        this.server = server;
    }

    /** {@code command}, on a server where locking is safe, with its failure translated. */
    <T> T call(String operation, String name, Supplier<T> command) {
        server(operation, name).requireAtomicUpdates(namespace);
        return send(operation, name, command);
    }

    /** {@code collection.updateOne(filter, update)} as {@link #call}, without a lambda per call (the hot path's). */
    UpdateResult updateOne(String operation, String name, MongoCollection<Document> collection, Bson filter, Bson update) {
        server(operation, name).requireAtomicUpdates(namespace);
        try {
            return collection.updateOne(filter, update);
        } catch (MongoException | IllegalStateException failure) {
            throw translated(operation, name, failure);
        }
    }

    /** {@code collection.findOneAndUpdate(filter, update, options)} as {@link #call}, without a lambda per call. */
    Document findOneAndUpdate(String operation, String name, MongoCollection<Document> collection, Bson filter, Bson update,
                              FindOneAndUpdateOptions options) {
        server(operation, name).requireAtomicUpdates(namespace);
        try {
            return collection.findOneAndUpdate(filter, update, options);
        } catch (MongoException | IllegalStateException failure) {
            throw translated(operation, name, failure);
        }
    }

    /**
     * What the server is: asked once, before the first lock operation; a failure to ask is that operation's
     * failure, reported (and counted in the metrics) as it.
     */
    ServerProfile server(String operation, String name) {
        ServerProfile known = server;
        if (known == null) {
            synchronized (this) {
                known = server;
                if (known == null) {
                    known = send(operation, name, () -> ServerProfile.of(database));
                    server = known;
                }
            }
        }
        return known;
    }

    private <T> T send(String operation, String name, Supplier<T> command) {
        try {
            return command.get();
        } catch (MongoException | IllegalStateException failure) {
            throw translated(operation, name, failure);
        }
    }

    /** What a call was about, for messages: {@code lock "name"}, or a session as the session calls name it. */
    static String subject(String name) {
        return name.startsWith(SESSION_SUBJECT) ? name : "lock " + LockArguments.quote(name);
    }

    /** How the session calls name what they act on ({@code "session <id>"}): no lock, so no "lock" in messages. */
    static final String SESSION_SUBJECT = "session ";

    /** What a driver failure of {@code operation} becomes (see the class comment); counted in the metrics. */
    private RuntimeException translated(String operation, String name, RuntimeException thrown) {
        if (thrown instanceof MongoInterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return new LockInterruptedException("Interrupted while MongoDB was asked to " + operation + " " + subject(name)
                    + "; the interrupt flag is kept.", interrupted);
        }
        if (thrown instanceof MongoException failure) {
            if (!isDuplicateKey(failure)) {
                metrics.storeFailed(operation); // a duplicate key is the protocol's "held", not a failure
            }
            return new LockStoreException("MongoDB could not " + operation + " " + subject(name) + " in " + namespace
                    + ": " + failure.getMessage() + " " + advice(failure, namespace), failure, !neverSent(failure));
        }
        metrics.storeFailed(operation);
        // The driver's answer to a call on a closed MongoClient ("state should be: open"): nothing was sent.
        boolean closedBeforeSending = String.valueOf(thrown.getMessage()).contains("should be: open");
        return new LockStoreException("MongoDB could not " + operation + " " + subject(name) + ": "
                + thrown.getMessage() + ". Is the MongoClient closed? Close the lock manager before the client it uses.",
                thrown, !closedBeforeSending);
    }

    /**
     * Whether a failure certainly happened before the request left the client: server selection and
     * connection failures. An operation timeout may strike after the write was applied, except while it
     * was still waiting for a server or a connection (the driver's messages for those two waits, which
     * under {@code timeoutMS} come as {@link MongoOperationTimeoutException} without a cause).
     */
    static boolean neverSent(MongoException failure) {
        if (failure instanceof MongoSocketOpenException) {
            return true;
        }
        if (failure instanceof MongoOperationTimeoutException) {
            String message = String.valueOf(failure.getMessage());
            return message.contains("waiting for a server") || message.contains("waiting for a connection");
        }
        return failure instanceof MongoTimeoutException;
    }

    /** What the user should do about a failure, as specific as the error allows. */
    static String advice(MongoException failure, String namespace) {
        return switch (failure.getCode()) {
            case 301 -> "This server does not support retryable writes (Amazon DocumentDB): add retryWrites=false to the"
                    + " connection string. mongolock stays correct without them: a write whose answer is lost is cleaned up"
                    + " (a fresh acquisition) or repaired by the owner's next call (re-entry, release).";
            case 13 -> "The user is not authorised: it needs find, insert, update and changeStream on " + namespace + ".";
            default -> "Check that MongoDB is reachable and that the user may read and write " + namespace + ".";
        };
    }

    /** 11000, 11001 and 12582 alike, from a write ({@code MongoWriteException}) or from findAndModify ({@code MongoCommandException}). */
    static boolean isDuplicateKey(Throwable failure) {
        return failure instanceof MongoServerException server
                && ErrorCategory.fromErrorCode(server.getCode()) == ErrorCategory.DUPLICATE_KEY;
    }
}
