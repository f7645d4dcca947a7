package io.github.mongolock.testing;

import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * A lock collection with one scripted fault of a replica set, for a single deterministic step of a unit test:
 * <ul>
 *   <li>{@link #missingReads}: the next {@code find}s of chosen documents answer "not found", as a newly elected
 *       primary of MongoDB 5.0 to 7.0 can answer a majority read from a snapshot older than writes a majority
 *       acknowledged (SERVER-53813), so that a document inserted shortly before reads as missing;</li>
 *   <li>{@link #failingCalls}: the next calls (of any kind) naming chosen documents in their filter time out
 *       before reaching the server, as in an election or a network partition.</li>
 * </ul>
 * Everything else goes to the real collection unchanged. The wrapper follows the store's
 * {@code withReadConcern}/{@code withTimeout}/... copies of the collection, so a store can be built on it as on the
 * real one. Faults seen by whole processes are the torture test's fault layer; this one is for unit tests.
 */
public final class ScriptedCollection {

    private enum Fault { MISSING_READ, TIMEOUT }

    private final Fault fault;
    private final AtomicInteger left;
    private final AtomicInteger done = new AtomicInteger();
    private final Predicate<BsonDocument> filter;

    private ScriptedCollection(Fault fault, int times, Predicate<BsonDocument> filter) {
        this.fault = fault;
        this.left = new AtomicInteger(times);
        this.filter = filter;
    }

    /** The next {@code times} {@code find}s whose filter matches {@code documents} find nothing. */
    public static ScriptedCollection missingReads(int times, Predicate<BsonDocument> documents) {
        return new ScriptedCollection(Fault.MISSING_READ, times, documents);
    }

    /** The next {@code times} calls whose first argument is a filter matching {@code documents} time out unsent. */
    public static ScriptedCollection failingCalls(int times, Predicate<BsonDocument> documents) {
        return new ScriptedCollection(Fault.TIMEOUT, times, documents);
    }

    /** Filters naming a session document ({@code _id: {mongolock: "session", ...}}). */
    public static boolean namesASession(BsonDocument filter) {
        return namesStoreDocument(filter, "session");
    }

    /** Filters naming the collection's state document (the token floor, {@code _id: {mongolock: "collection"}}). */
    public static boolean namesTheCollectionState(BsonDocument filter) {
        return namesStoreDocument(filter, "collection");
    }

    private static boolean namesStoreDocument(BsonDocument filter, String kind) {
        return filter.get("_id") instanceof BsonDocument id && new BsonString(kind).equals(id.get("mongolock"));
    }

    /** How many times the fault has happened so far. */
    public int happened() {
        return done.get();
    }

    /**
     * A client whose databases' collections are {@link #wrap wrapped}: for a {@code MongoLockManager} built on it.
     * Closing it closes the real client.
     */
    public MongoClient wrapClient(MongoClient real) {
        return (MongoClient) Proxy.newProxyInstance(MongoClient.class.getClassLoader(), new Class<?>[] {MongoClient.class},
                (proxy, method, args) -> wrapped(invoke(real, method, args)));
    }

    private MongoDatabase wrapDatabase(MongoDatabase real) {
        return (MongoDatabase) Proxy.newProxyInstance(MongoDatabase.class.getClassLoader(), new Class<?>[] {MongoDatabase.class},
                (proxy, method, args) -> wrapped(invoke(real, method, args)));
    }

    @SuppressWarnings("unchecked")
    private Object wrapped(Object result) {
        if (result instanceof MongoDatabase database) {
            return wrapDatabase(database);
        }
        if (result instanceof MongoCollection<?> collection && collection.getDocumentClass() == Document.class) {
            return wrap((MongoCollection<Document>) collection);
        }
        return result;
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException thrown) {
            throw thrown.getCause();
        }
    }

    @SuppressWarnings("unchecked")
    public MongoCollection<Document> wrap(MongoCollection<Document> real) {
        InvocationHandler handler = new Handler(real);
        return (MongoCollection<Document>) Proxy.newProxyInstance(MongoCollection.class.getClassLoader(),
                new Class<?>[] {MongoCollection.class}, handler);
    }

    private boolean strikes(Method method, Object[] args) {
        if (args == null || args.length == 0 || !(args[0] instanceof Bson query)
                || (fault == Fault.MISSING_READ && !method.getName().equals("find"))) {
            return false;
        }
        if (!filter.test(query.toBsonDocument()) || left.getAndUpdate(n -> Math.max(0, n - 1)) == 0) {
            return false;
        }
        done.incrementAndGet();
        return true;
    }

    private final class Handler implements InvocationHandler {
        private final MongoCollection<Document> real;

        Handler(MongoCollection<Document> real) {
            this.real = real;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            Object[] called = args;
            if (strikes(method, args)) {
                if (fault == Fault.TIMEOUT) {
                    throw new MongoOperationTimeoutException("scripted fault: timed out before the request was sent");
                }
                // The same read of a document nothing can be: it finds nothing.
                called = args.clone();
                called[0] = new Document("_id", new Document("mongolock", "missing read"));
            }
            Object result;
            try {
                result = method.invoke(real, called);
            } catch (InvocationTargetException thrown) {
                throw thrown.getCause();
            }
            if (result instanceof MongoCollection<?> copy && method.getName().startsWith("with")) {
                return wrap((MongoCollection<Document>) copy);
            }
            return result;
        }
    }
}
