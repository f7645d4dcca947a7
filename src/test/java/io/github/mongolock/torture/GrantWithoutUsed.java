package io.github.mongolock.torture;

import com.mongodb.client.MongoCollection;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.bson.Document;

/**
 * The torture's mutation of the semaphore (test code only, chosen with {@code -Dmongolock.torture.mutation=}
 * {@value #NAME}): the lock collection as the worker's store sees it, with the grant's condition on {@code used}
 * dropped from every {@code findOneAndUpdate} on a semaphore document, so a grant lands whatever is in use. This
 * is {@code spec/Permits.tla}'s broken variant {@code GrantWithoutUsed}; the permits scenarios must fail on it
 * (docs/torture.md records that they do). With {@value #RW_NAME} the same rewrite hits the read-write locks'
 * documents instead ({@code _id.mongolock: "rw"}): a read grant then ignores a writer's hold, and a write grant
 * every hold (the queue rule, writer preference, stays); the read-write scenarios must fail on it. Every other
 * call, and every collection derived from this one ({@code withWriteConcern}, {@code withTimeout}, ...), goes
 * through unchanged but for the same rewrite.
 */
final class GrantWithoutUsed implements InvocationHandler {

    static final String NAME = "grant-without-used";
    static final String RW_NAME = "rw-grant-without-used";
    static final String PROPERTY = "mongolock.torture.mutation";

    private final MongoCollection<Document> target;
    private final String kind;

    private GrantWithoutUsed(MongoCollection<Document> target, String kind) {
        this.target = target;
        this.kind = kind;
    }

    /** Whether this JVM was asked to run the mutation, of the semaphores' or the read-write locks' grants. */
    static boolean chosen() {
        return NAME.equals(chosenName()) || RW_NAME.equals(chosenName());
    }

    static String chosenName() {
        return System.getProperty(PROPERTY, "");
    }

    /** The {@code _id.mongolock} kind of the documents whose grants the chosen mutation loosens. */
    static String chosenKind() {
        return RW_NAME.equals(chosenName()) ? "rw" : "permits";
    }

    static MongoCollection<Document> wrap(MongoCollection<Document> collection) {
        return wrap(collection, chosenKind());
    }

    @SuppressWarnings("unchecked")
    private static MongoCollection<Document> wrap(MongoCollection<Document> collection, String kind) {
        return (MongoCollection<Document>) Proxy.newProxyInstance(GrantWithoutUsed.class.getClassLoader(),
                new Class<?>[] {MongoCollection.class}, new GrantWithoutUsed(collection, kind));
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getName().equals("findOneAndUpdate") && args != null) {
            for (int i = 0; i < args.length; i++) {
                if (args[i] instanceof Document filter && filter.get("_id") instanceof Document id
                        && kind.equals(id.get("mongolock")) && filter.containsKey("used")) {
                    Document loosened = new Document(filter);
                    loosened.remove("used");
                    args[i] = loosened;
                    break;
                }
            }
        }
        Object result;
        try {
            result = method.invoke(target, args);
        } catch (InvocationTargetException thrown) {
            throw thrown.getCause();
        }
        return result instanceof MongoCollection<?> derived && method.getReturnType() == MongoCollection.class
                ? wrap((MongoCollection<Document>) derived, kind) : result;
    }
}
