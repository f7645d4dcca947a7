package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockSession;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.Locked;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.context.RequestScoped;
import jakarta.enterprise.context.SessionScoped;
import jakarta.enterprise.inject.Stereotype;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.Serializable;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code @Locked} on beans of every kind Weld SE offers: names, exclusion, SKIP, FAIL, re-entry, CompletionStage. */
@ExtendWith(MongoBackend.class)
@EnableWeld
class LockedInterceptorTest {

    @WeldSetup
    WeldInitiator weld;

    @Inject
    Billing billing;

    @Inject
    Outer outer;

    @Inject
    ClassLevel classLevel;

    @Inject
    InheritingBean inheriting;

    @Inject
    SingletonBean singleton;

    @Inject
    RequestBean requestBean;

    @Inject
    SessionBean sessionBean;

    @Inject
    Invoicing invoicing;

    @Inject
    StereotypedBean stereotyped;

    @Inject
    LockManager locks;

    LockedInterceptorTest(TestMongo mongo) {
        weld = WeldInitiator.from(WeldInitiator.createWeld()
                        .addBeanClasses(Billing.class, Outer.class, Inner.class, ClassLevel.class, InheritingBean.class,
                                SingletonBean.class, RequestBean.class, SessionBean.class,
                                InvoicingBean.class, StereotypedBean.class)
                        .addExtension(new MongoLockExtension(WeldNodes.config(WeldNodes.settings(mongo, mongo.freshDatabase(),
                                "mongolock.wait-time", "PT0.3S")))))
                .activate(RequestScoped.class, SessionScoped.class)
                .build();
    }

    @ApplicationScoped
    public static class Billing {
        @Inject
        LockManager locks;
        final AtomicInteger runs = new AtomicInteger();
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger mostInside = new AtomicInteger();
        long unsafeCounter;

        public int runs() {
            return runs.get();
        }

        public int mostInside() {
            return mostInside.get();
        }

        public long counter() {
            return unsafeCounter;
        }

        @Locked("invoice-run")
        public LockInfo runInvoices() {
            runs.incrementAndGet();
            return locks.inspect("invoice-run").orElseThrow();
        }

        @Locked
        public LockInfo unnamed() {
            return locks.inspect(Billing.class.getName() + ".unnamed").orElseThrow();
        }

        @Locked(value = "account-{0}", waitTime = "PT5S")
        public LockInfo charge(String accountId, long cents) {
            return locks.inspect("account-" + accountId).orElseThrow();
        }

        @Locked("account-{account}")
        public LockInfo chargeAccount(Object account, long cents) {
            runs.incrementAndGet();
            return locks.inspect("account-" + account).orElseThrow();
        }

        @Locked("acct-{accountId}/{1}/{{literal}}")
        public LockInfo byName(String accountId, int region) {
            return locks.inspect("acct-" + accountId + "/" + region + "/{literal}").orElseThrow();
        }

        @Locked(value = "counter", waitTime = "PT30S")
        public void increment() {
            int now = inside.incrementAndGet();
            mostInside.accumulateAndGet(now, Math::max);
            long read = unsafeCounter;
            Thread.yield();
            unsafeCounter = read + 1;
            inside.decrementAndGet();
        }

        @Locked(value = "report", onBusy = Locked.OnBusy.SKIP, waitTime = "PT0.2S")
        public void report() {
            runs.incrementAndGet();
        }

        @Locked(value = "report", onBusy = Locked.OnBusy.SKIP, waitTime = "PT0S")
        public Optional<String> reportOptional() {
            runs.incrementAndGet();
            return Optional.of("ran");
        }

        @Locked(value = "report", onBusy = Locked.OnBusy.SKIP, waitTime = "PT0S")
        public CompletionStage<String> reportAsync() {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        @Locked(value = "report", waitTime = "PT0.3S")
        public void reportOrFail() {
            runs.incrementAndGet();
        }

        @Locked("async-{0}")
        public CompletableFuture<String> later(String id, CompletableFuture<String> work) {
            return work;
        }

        @Locked("async-{0}")
        public OwnFuture<String> own(String id, OwnFuture<String> work) {
            return work;
        }

        @Locked("async-{0}")
        public CompletionStage<String> failsAtOnce(String id) {
            throw new IllegalStateException("refused before any stage");
        }

        @Locked("sync-failure")
        public void fails() {
            throw new IllegalArgumentException("boom");
        }
    }

    @ApplicationScoped
    public static class Outer {
        @Inject
        Inner inner;
        @Inject
        LockManager locks;

        @Locked("nested")
        public List<LockInfo> outerThenInner() {
            List<LockInfo> seen = new ArrayList<>();
            seen.add(locks.inspect("nested").orElseThrow());
            seen.add(inner.innerCall());
            seen.add(locks.inspect("nested").orElseThrow());
            return seen;
        }
    }

    @Dependent
    public static class Inner {
        @Inject
        LockManager locks;

        @Locked("nested")
        public LockInfo innerCall() {
            return locks.inspect("nested").orElseThrow();
        }
    }

    @Dependent
    @Locked("class-level")
    public static class ClassLevel {
        @Inject
        LockManager locks;

        public Optional<LockInfo> first() {
            return locks.inspect("class-level");
        }

        @Locked("method-level")
        public Optional<LockInfo> overridden() {
            return locks.inspect("method-level");
        }
    }

    @Locked("inherited-{0}")
    public static class LockedBase {
    }

    @ApplicationScoped
    public static class InheritingBean extends LockedBase {
        @Inject
        LockManager locks;

        public Optional<LockInfo> work(String id) {
            return locks.inspect("inherited-" + id);
        }
    }

    @Singleton
    public static class SingletonBean {
        @Inject
        LockManager locks;

        @Locked("pseudo-scoped")
        public Optional<LockInfo> work() {
            return locks.inspect("pseudo-scoped");
        }
    }

    @RequestScoped
    public static class RequestBean {
        @Inject
        LockManager locks;

        @Locked("request-scoped")
        public Optional<LockInfo> work() {
            return locks.inspect("request-scoped");
        }
    }

    /** A passivating scope: the interceptor must be passivation capable for this to deploy. */
    @SessionScoped
    public static class SessionBean implements Serializable {
        private static final long serialVersionUID = 1L;
        @Inject
        LockManager locks;

        @Locked("session-scoped")
        public Optional<LockInfo> work() {
            return locks.inspect("session-scoped");
        }
    }

    /** A CompletionStage type of the application's own. */
    public static class OwnFuture<T> extends CompletableFuture<T> {
    }

    /** An application's stereotype carrying @Locked. */
    @Stereotype
    @Locked("stereotyped-{0}")
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    public @interface OneAtATime {
    }

    @ApplicationScoped
    @OneAtATime
    public static class StereotypedBean {
        @Inject
        LockManager locks;

        public Optional<LockInfo> work(String id) {
            return locks.inspect("stereotyped-" + id);
        }
    }

    /** A business interface, as an EJB's local view. */
    public interface Invoicing {
        Optional<LockInfo> invoice(String id);
    }

    /** Shaped like a stateless session bean (Weld SE has no EJB container): stateless, used through its interface. */
    @Dependent
    public static class InvoicingBean implements Invoicing {
        @Inject
        LockManager locks;

        @Override
        @Locked("invoice-{id}")
        public Optional<LockInfo> invoice(String id) {
            return locks.inspect("invoice-" + id);
        }
    }

    @Test
    void holdsTheLockWhileTheMethodRunsAndReleasesItAfter() {
        LockInfo during = billing.runInvoices();
        assertEquals("invoice-run", during.name());
        assertEquals(1, during.holdCount());
        assertTrue(during.owner().endsWith(":" + Thread.currentThread().getId()), during.owner());
        assertTrue(locks.inspect("invoice-run").isEmpty(), "released after the call");
        assertTrue(billing.runInvoices().fencingToken() > during.fencingToken(), "a fresh acquisition has a new token");
    }

    @Test
    void anEmptyNameIsTheDeclaringClassAndMethod() {
        assertEquals(Billing.class.getName() + ".unnamed", billing.unnamed().name());
    }

    @Test
    void templatesInsertArgumentsByPositionAndByName() {
        assertEquals("account-42", billing.charge("42", 100).name());
        assertEquals("acct-a/7/{literal}", billing.byName("a", 7).name());
        // '$' and '.' are ordinary characters of a name: stored as a string _id, never read as an operator or a path.
        assertEquals("account-$where.x", billing.charge("$where.x", 1).name());
        // Control characters are legal in a name (and a BSON string); messages show them escaped.
        assertEquals("account-line\nbreak\u001b[31m", billing.charge("line\nbreak\u001b[31m", 1).name());
    }

    /**
     * Issue 34: a null argument makes no lock name. It used to make "account-null", one lock for every such call and
     * for the account named "null"; seen failing before: the call ran under "account-null".
     */
    @Test
    void aNullArgumentIsRefusedNamingTheMethodTheTemplateAndTheArgument() {
        LockConfigurationException refused = assertThrows(LockConfigurationException.class, () -> billing.charge(null, 100));
        assertEquals("MONGOLOCK-CDI-022: @Locked(\"account-{0}\") on " + Billing.class.getName() + ".charge(String, long)"
                + " was called with argument {0} (accountId) null: no lock name can be made from it (\"null\" would make one"
                + " lock of every such call and of the text \"null\"). The method did not run. Pass a value, or check the"
                + " argument before the call.", refused.getMessage());
        assertTrue(locks.inspect("account-null").isEmpty(), "nothing acquired");
        int runsBefore = billing.runs();
        LockConfigurationException nullText = assertThrows(LockConfigurationException.class,
                () -> billing.chargeAccount(new NullText(), 1));
        assertTrue(nullText.getMessage().startsWith("MONGOLOCK-CDI-022: @Locked(\"account-{account}\")")
                && nullText.getMessage().contains("argument {0} (account) null"), nullText.getMessage());
        assertEquals(runsBefore, billing.runs(), "the method did not run");
    }

    /**
     * A name made from the arguments that breaks the rules names the method and template; a very long one is shown
     * cut, control characters escaped. Seen failing before: the core's message alone, without the method.
     */
    @Test
    void anInvalidNameFromTheArgumentsIsRefusedNamingTheMethodAndTemplate() {
        LockConfigurationException tooLong = assertThrows(LockConfigurationException.class,
                () -> billing.charge("line\n" + "x".repeat(600), 1));
        String message = tooLong.getMessage();
        assertTrue(message.startsWith("MONGOLOCK-CDI-023: @Locked(\"account-{0}\") on " + Billing.class.getName()
                + ".charge(String, long) made an invalid lock name from its arguments: Lock name \"account-line\\u000Axxx"), message);
        assertTrue(message.contains("...(613 chars)\" is 613 UTF-8 bytes long: at most 512 are allowed")
                && message.endsWith("The method did not run."), message);
        assertFalse(message.contains("\n") || message.contains("x".repeat(81)), "cut and escaped: " + message);
        LockConfigurationException nul = assertThrows(LockConfigurationException.class, () -> billing.charge("nul\0", 1));
        assertTrue(nul.getMessage().startsWith("MONGOLOCK-CDI-023: ") && nul.getMessage().contains("NUL character at index 11"),
                nul.getMessage());
    }

    /** An argument whose toString() is null. */
    public static final class NullText {
        @Override
        public String toString() {
            return null;
        }
    }

    @Test
    void threadsOfOneApplicationExcludeEachOther() throws Exception {
        int threads = 4;
        int calls = 25;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < calls; i++) {
                        billing.increment();
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        System.out.println("[mongolock tests] @Locked counter: " + billing.counter() + " of " + threads * calls
                + " increments, at most " + billing.mostInside() + " thread(s) inside at once");
        assertEquals(threads * calls, billing.counter());
        assertEquals(1, billing.mostInside());
    }

    @Test
    void skipReturnsNothingWithoutRunningWhileBusy() throws Exception {
        try (Held held = Held.elsewhere(locks, "report")) {
            long start = System.nanoTime();
            billing.report();
            assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() >= 150, "waited its waitTime first");
            assertEquals(Optional.empty(), billing.reportOptional());
            CompletionStage<String> skipped = billing.reportAsync();
            assertTrue(skipped.toCompletableFuture().isDone());
            assertEquals(null, skipped.toCompletableFuture().join());
            assertEquals(0, billing.runs());
        }
        billing.report();
        assertEquals(Optional.of("ran"), billing.reportOptional());
        assertEquals("ran", billing.reportAsync().toCompletableFuture().join());
        assertEquals(3, billing.runs());
    }

    @Test
    void failThrowsLockTimeoutExceptionAfterTheWaitTime() throws Exception {
        try (Held held = Held.elsewhere(locks, "report")) {
            long start = System.nanoTime();
            LockTimeoutException timeout = assertThrows(LockTimeoutException.class, billing::reportOrFail);
            long waited = Duration.ofNanos(System.nanoTime() - start).toMillis();
            assertEquals("report", timeout.lockName());
            assertTrue(waited >= 250 && waited < 5_000, "waited " + waited + " ms for PT0.3S");
            assertEquals(0, billing.runs());
        }
        billing.reportOrFail();
        assertEquals(1, billing.runs());
    }

    @Test
    void nestedCallsOnOneThreadReEnterWithTheSameToken() {
        List<LockInfo> seen = outer.outerThenInner();
        assertEquals(List.of(1, 2, 1), seen.stream().map(LockInfo::holdCount).toList());
        assertEquals(1, seen.stream().map(LockInfo::fencingToken).distinct().count(), "one fencing token: " + seen);
        assertTrue(locks.inspect("nested").isEmpty());
    }

    @Test
    void aCompletionStageKeepsTheLockUntilItCompletesOnAnotherThread() throws Exception {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> returned = billing.later("1", work);
        assertFalse(returned.isDone());
        LockInfo held = locks.inspect("async-1").orElseThrow(() -> new AssertionError("released before the stage completed"));
        assertEquals(1, held.holdCount());
        AtomicReference<Optional<LockInfo>> seenByCaller = new AtomicReference<>();
        CompletableFuture<Void> callerSees = returned.thenRun(() -> seenByCaller.set(locks.inspect("async-1")));
        Thread completer = new Thread(() -> work.complete("done"), "completer");
        completer.start();
        completer.join(10_000);
        assertEquals("done", returned.get(10, TimeUnit.SECONDS));
        callerSees.get(10, TimeUnit.SECONDS);
        assertEquals(Optional.empty(), seenByCaller.get(), "the caller's stage completes after the release");

        CompletableFuture<String> failing = new CompletableFuture<>();
        CompletableFuture<String> failed = billing.later("2", failing);
        assertTrue(locks.inspect("async-2").isPresent());
        failing.completeExceptionally(new IllegalStateException("work failed"));
        Exception thrown = assertThrows(Exception.class, () -> failed.get(10, TimeUnit.SECONDS));
        assertEquals("work failed", thrown.getCause().getMessage());
        assertTrue(locks.inspect("async-2").isEmpty(), "released after an exceptional completion");

        OwnFuture<String> own = new OwnFuture<>();
        assertSame(own, billing.own("4", own), "another stage type is returned as it is");
        assertTrue(locks.inspect("async-4").isPresent());
        own.complete("done");
        assertTrue(locks.inspect("async-4").isEmpty(), "released when it completed");

        assertThrows(IllegalStateException.class, () -> billing.failsAtOnce("3"));
        assertTrue(locks.inspect("async-3").isEmpty(), "released at once when the method throws");
    }

    @Test
    void anExceptionPropagatesAndReleasesTheLock() {
        IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, billing::fails);
        assertEquals("boom", thrown.getMessage());
        assertEquals(0, thrown.getSuppressed().length);
        assertTrue(locks.inspect("sync-failure").isEmpty());
    }

    @Test
    void everyKindOfBeanIsIntercepted() {
        assertEquals(1, classLevel.first().orElseThrow().holdCount());
        assertTrue(classLevel.overridden().isPresent(), "the method's @Locked wins");
        assertTrue(locks.inspect("class-level").isEmpty());
        assertEquals("inherited-x", inheriting.work("x").orElseThrow().name());
        assertTrue(singleton.work().isPresent());
        assertTrue(requestBean.work().isPresent());
        assertTrue(sessionBean.work().isPresent());
        assertEquals("invoice-9", invoicing.invoice("9").orElseThrow().name());
        assertEquals("stereotyped-s", stereotyped.work("s").orElseThrow().name());
        assertTrue(locks.inspect("session-scoped").isEmpty());
        assertTrue(locks.inspect("pseudo-scoped").isEmpty());
        assertTrue(locks.inspect("request-scoped").isEmpty());
    }

    @Test
    void theLockManagerBeanIsApplicationScopedAndShared() {
        assertEquals(weld.select(LockManager.class).get().toString(), locks.toString());
        assertTrue(locks.toString().startsWith("mongolock LockManager"), locks.toString());
    }

    /** A lock held by another thread of the same application until closed. */
    static final class Held implements AutoCloseable {
        private final CountDownLatch release = new CountDownLatch(1);
        private final Thread thread;

        private Held(LockManager locks, String name) throws InterruptedException {
            CountDownLatch held = new CountDownLatch(1);
            thread = new Thread(() -> {
                try (LockSession session = locks.acquire(name)) {
                    held.countDown();
                    release.await();
                } catch (InterruptedException stop) {
                    Thread.currentThread().interrupt();
                }
            }, "holder-" + name);
            thread.start();
            assertTrue(held.await(10, TimeUnit.SECONDS), "the other thread got " + name);
        }

        static Held elsewhere(LockManager locks, String name) throws InterruptedException {
            return new Held(locks, name);
        }

        @Override
        public void close() throws InterruptedException {
            release.countDown();
            thread.join(10_000);
        }
    }
}
