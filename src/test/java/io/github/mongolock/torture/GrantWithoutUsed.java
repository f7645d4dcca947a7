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
 * (docs/torture.md records that they do). Every other call, and every collection derived from this one
 * ({@code withWriteConcern}, {@code withTimeout}, ...), goes through unchanged but for the same rewrite.
 */
final class GrantWithoutUsed implements InvocationHandler {

    static final String NAME = "grant-without-used";
    static final String PROPERTY = "mongolock.torture.mutation";

    private final MongoCollection<Document> target;

    private GrantWithoutUsed(MongoCollection<Document> target) {
        this.target = target;
    }

    /** Whether this JVM was asked to run the mutation. */
    static boolean chosen() {
        return NAME.equals(System.getProperty(PROPERTY, ""));
    }

    @SuppressWarnings("unchecked")
    static MongoCollection<Document> wrap(MongoCollection<Document> collection) {
        return (MongoCollection<Document>) Proxy.newProxyInstance(GrantWithoutUsed.class.getClassLoader(),
                new Class<?>[] {MongoCollection.class}, new GrantWithoutUsed(collection));
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getName().equals("findOneAndUpdate") && args != null) {
            for (int i = 0; i < args.length; i++) {
                if (args[i] instanceof Document filter && filter.get("_id") instanceof Document id
                        && "permits".equals(id.get("mongolock")) && filter.containsKey("used")) {
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
                ? wrap((MongoCollection<Document>) derived) : result;
    }
}
