package io.github.mongolock.cdi;

import static com.mongodb.client.model.Filters.eq;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import io.github.mongolock.LockEvent;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.Locked;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.build.compatible.spi.BuildCompatibleExtension;
import jakarta.enterprise.inject.build.compatible.spi.SkipIfPortableExtensionPresent;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InterceptorBinding;
import jakarta.interceptor.InvocationContext;
import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Shutdown, the application's MongoClient bean, the interceptor priority, and the packaged descriptors. */
@ExtendWith(MongoBackend.class)
class LifecycleTest {

    @ApplicationScoped
    public static class Task {
        @Inject
        LockManager locks;

        @Locked("task-{0}")
        public CompletableFuture<String> start(String id, CompletableFuture<String> work) {
            return work;
        }

        @Locked("task-{0}")
        public Optional<LockInfo> run(String id) {
            return locks.inspect("task-" + id);
        }
    }

    /** The application's own MongoClient, as a bean; the test owns and closes the client. */
    @ApplicationScoped
    public static class ClientProducer {
        static volatile MongoClient client;

        @Produces
        @ApplicationScoped
        MongoClient client() {
            return client;
        }
    }

    @InterceptorBinding
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE, ElementType.METHOD})
    public @interface TransactionalLike {
    }

    /** Stands in for JTA's {@code @Transactional} interceptor (PLATFORM_BEFORE + 200): notes whether the lock is held around it. */
    @TransactionalLike
    @Interceptor
    @Priority(Interceptor.Priority.PLATFORM_BEFORE + 200)
    public static class TransactionalLikeInterceptor {
        @Inject
        LockManager locks;
        @Inject
        Ordered ordered;

        @AroundInvoke
        Object around(InvocationContext invocation) throws Exception {
            ordered.noteLockHeld(locks.inspect("ordered").isPresent());
            return invocation.proceed();
        }
    }

    @ApplicationScoped
    public static class Ordered {
        Boolean lockHeldAroundTransaction;

        @Locked("ordered")
        @TransactionalLike
        public void work() {
        }

        public void noteLockHeld(boolean held) {
            lockHeldAroundTransaction = held;
        }

        public Boolean lockHeldAroundTransaction() {
            return lockHeldAroundTransaction;
        }
    }

    @Test
    void shutdownReleasesHeldLocks(TestMongo mongo) throws Exception {
        String database = mongo.freshDatabase();
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> returned;
        try (MongoLockManager observer = MongoLockManager.builder().client(mongo.client()).database(database).build()) {
            List<LockEvent> events;
            try (WeldContainer node = WeldNodes.start("shutdown", WeldNodes.settings(mongo, database), Task.class,
                    EventsTest.Recorder.class)) {
                events = node.select(EventsTest.Recorder.class).get().live();
                returned = node.select(Task.class).get().start("1", work);
                assertTrue(observer.inspect("task-1").isPresent(), "held while the stage is pending");
            }
            assertTrue(observer.inspect("task-1").isEmpty(), "released by the shutdown");
            assertEquals(List.of(LockEvent.Kind.ACQUIRED), events.stream().map(LockEvent::kind).toList(),
                    "no events from the shutdown itself");
            work.complete("late");
            assertEquals("late", returned.get(10, TimeUnit.SECONDS), "a release after shutdown is a no-op");
        }
    }

    @Test
    void theApplicationsMongoClientIsUsedWhenNoUriIsSetAndIsNotClosed(TestMongo shared) {
        try (TestMongo own = TestMongo.startStandIn()) {
            ClientProducer.client = own.client();
            String database = shared.freshDatabase();
            try (WeldContainer node = WeldNodes.start("client-bean", Map.of("mongolock.database", database),
                    Task.class, ClientProducer.class)) {
                LockInfo held = node.select(Task.class).get().run("2").orElseThrow();
                assertEquals("task-2", held.name());
            }
            assertEquals(1, own.collection(database, "locks").countDocuments(eq("_id", "task-2")),
                    "the lock document is in the bean's MongoDB (and its client is still open after shutdown)");
            assertEquals(0, shared.collection(database, "locks").countDocuments());
        } finally {
            ClientProducer.client = null;
        }
    }

    @Test
    void aConfiguredUriWinsOverTheApplicationsMongoClient(TestMongo shared) {
        try (TestMongo own = TestMongo.startStandIn()) {
            ClientProducer.client = own.client();
            String database = shared.freshDatabase();
            try (WeldContainer node = WeldNodes.start("uri-wins", WeldNodes.settings(shared, database),
                    Task.class, ClientProducer.class)) {
                assertTrue(node.select(Task.class).get().run("3").isPresent());
            }
            assertEquals(1, shared.collection(database, "locks").countDocuments(eq("_id", "task-3")));
            assertEquals(0, own.collection(database, "locks").countDocuments());
        } finally {
            ClientProducer.client = null;
        }
    }

    @Test
    void byDefaultTheLockIsTakenOutsideTheTransaction(TestMongo mongo) {
        try (WeldContainer node = WeldNodes.start("default-priority", WeldNodes.settings(mongo, mongo.freshDatabase()),
                Ordered.class, TransactionalLikeInterceptor.class)) {
            node.select(Ordered.class).get().work();
            assertEquals(Boolean.TRUE, node.select(Ordered.class).get().lockHeldAroundTransaction());
        }
    }

    @Test
    void theInterceptorPriorityIsConfigurable(TestMongo mongo) {
        try (WeldContainer node = WeldNodes.start("late-priority", WeldNodes.settings(mongo, mongo.freshDatabase(),
                "mongolock.interceptor.priority", "300"), Ordered.class, TransactionalLikeInterceptor.class)) {
            node.select(Ordered.class).get().work();
            assertEquals(Boolean.FALSE, node.select(Ordered.class).get().lockHeldAroundTransaction(),
                    "priority 300 runs after (inside) the PLATFORM_BEFORE + 200 interceptor");
        }
    }

    @Test
    void theDescriptorsRegisterTheExtensionAndAnAnnotatedBeanArchive() throws IOException {
        assertTrue(ServiceLoader.load(Extension.class).stream()
                .anyMatch(provider -> provider.type() == MongoLockExtension.class));
        // Quarkus runs the build-compatible extension; Weld skips it because the portable one is present.
        assertTrue(ServiceLoader.load(BuildCompatibleExtension.class).stream()
                .anyMatch(provider -> provider.type() == MongoLockBuildExtension.class));
        assertEquals(MongoLockExtension.class,
                MongoLockBuildExtension.class.getAnnotation(SkipIfPortableExtensionPresent.class).value());
        URL beansXml = MongoLockExtension.class.getClassLoader().getResource("META-INF/beans.xml");
        assertTrue(beansXml != null && beansXml.getPath().endsWith("/classes/META-INF/beans.xml"), String.valueOf(beansXml));
        try (InputStream in = beansXml.openStream()) {
            assertTrue(new String(in.readAllBytes(), StandardCharsets.UTF_8).contains("bean-discovery-mode=\"annotated\""));
        }
    }

    /**
     * As in a server: discovery on (the library's annotated archive is scanned and its interceptor found),
     * the extension loaded from its service file, configuration from {@code ConfigProvider.getConfig()}.
     * The interceptor still runs once: the hold count inside is 1.
     */
    @Test
    void aDiscoveredLibraryWithServiceLoadedExtensionAndConfigProvider(TestMongo mongo) throws Exception {
        ConfigProviderResolver resolver = ConfigProviderResolver.instance();
        WeldNodes.inApplication(application -> {
            var config = WeldNodes.config(WeldNodes.settings(mongo, mongo.freshDatabase()));
            resolver.registerConfig(config, application);
            try (WeldContainer node = new Weld("discovered")
                    .property("org.jboss.weld.se.shutdownHook", false)
                    .addBeanClasses(Task.class)
                    .initialize()) {
                LockInfo held = node.select(Task.class).get().run("4").orElseThrow();
                assertEquals(1, held.holdCount());
                assertFalse(node.select(MongoLockExtension.class).isUnsatisfied());
            } finally {
                resolver.releaseConfig(config);
            }
        });
    }
}
