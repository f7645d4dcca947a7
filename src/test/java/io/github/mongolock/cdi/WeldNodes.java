package io.github.mongolock.cdi;

import io.github.mongolock.testing.TestMongo;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.Config;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

/** Boots Weld SE containers ("nodes") with mongolock's extension and a SmallRye Config of their own. */
final class WeldNodes {

    private WeldNodes() {
    }

    /** A SmallRye Config holding exactly {@code values}. */
    static Config config(Map<String, String> values) {
        return new SmallRyeConfigBuilder()
                .addDefaultInterceptors()
                .withSources(new PropertiesConfigSource(values, "test", 400))
                .build();
    }

    /** Connection settings for {@code database} on the test MongoDB, plus {@code extra}. */
    static Map<String, String> settings(TestMongo mongo, String database, String... extra) {
        Map<String, String> values = new HashMap<>();
        values.put("mongolock.uri", mongo.uri());
        values.put("mongolock.database", database);
        for (int i = 0; i < extra.length; i += 2) {
            values.put(extra[i], extra[i + 1]);
        }
        return values;
    }

    /** A container with discovery off, the given bean classes, and the extension reading {@code values}. */
    static Weld weld(String id, Map<String, String> values, Class<?>... beans) {
        return new Weld(id)
                .disableDiscovery()
                .property("org.jboss.weld.se.shutdownHook", false)
                .addBeanClasses(beans)
                .addExtension(new MongoLockExtension(config(values)));
    }

    /** A call that holds something until told: counts {@code started} down once it holds, returns once {@code finish} is. */
    interface HoldingCall {
        void holdUntil(CountDownLatch started, CountDownLatch finish) throws Exception;
    }

    /** What a test checks while another thread holds. */
    interface WhileHeld {
        void check() throws Exception;
    }

    /**
     * Runs {@code hold} on a thread of its own, runs {@code whileHeld} once it holds, then lets it finish and waits for
     * it (10 s each at most): what node A holds while node B is tried, in the two-node tests.
     */
    static void whileHolding(HoldingCall hold, WhileHeld whileHeld) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<?> holding = pool.submit(() -> {
                hold.holdUntil(started, finish);
                return null;
            });
            if (!started.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the holding call did not hold within 10 s");
            }
            whileHeld.check();
            finish.countDown();
            holding.get(10, TimeUnit.SECONDS);
        } finally {
            finish.countDown();
            pool.shutdownNow();
        }
    }

    /** What runs as an application would, with a class loader of its own as the thread's context class loader. */
    interface InApplication {
        void run(ClassLoader application) throws Exception;
    }

    /**
     * Runs {@code body} with a fresh class loader as the thread's context class loader, as a server gives each
     * application its own (MicroProfile Config registers a configuration per class loader), and restores the former.
     */
    static void inApplication(InApplication body) throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader original = thread.getContextClassLoader();
        try (URLClassLoader application = new URLClassLoader(new URL[0], original)) {
            thread.setContextClassLoader(application);
            body.run(application);
        } finally {
            thread.setContextClassLoader(original);
        }
    }

    static WeldContainer start(String id, Map<String, String> values, Class<?>... beans) {
        return weld(id, values, beans).initialize();
    }
}
