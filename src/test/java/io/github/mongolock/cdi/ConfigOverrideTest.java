package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockTimeoutException;
import io.github.mongolock.Locked;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Wait and lease times: method key, then class key, then global key, then the annotation, then the manager's default. */
@ExtendWith(MongoBackend.class)
class ConfigOverrideTest {

    @ApplicationScoped
    public static class Tuned {
        @Inject
        LockManager locks;

        @Locked(value = "method-wins", waitTime = "PT1S", leaseTime = "PT40S")
        public LockInfo methodWins() {
            return locks.inspect("method-wins").orElseThrow();
        }

        @Locked(value = "class-wins", waitTime = "PT1S", leaseTime = "PT40S")
        public LockInfo classWins() {
            return locks.inspect("class-wins").orElseThrow();
        }
    }

    @ApplicationScoped
    public static class Plain {
        @Inject
        LockManager locks;

        @Locked(value = "annotated", waitTime = "PT1S", leaseTime = "PT40S")
        public LockInfo annotated() {
            return locks.inspect("annotated").orElseThrow();
        }

        @Locked("defaults")
        public LockInfo defaults() {
            return locks.inspect("defaults").orElseThrow();
        }
    }

    @ApplicationScoped
    public static class Skipping {
        @Locked(value = "skip-now", onBusy = Locked.OnBusy.SKIP)
        public void skipNow() {
        }

        @Locked(value = "skip-after-override", onBusy = Locked.OnBusy.SKIP)
        public void skipAfterOverride() {
        }

        @Locked(value = "held-at-least", onBusy = Locked.OnBusy.SKIP, holdAtLeast = "PT7S")
        public void heldAtLeast() {
        }
    }

    private static final String TUNED = Tuned.class.getName();

    @Test
    void skipWithoutAWaitTimeSkipsAtOnceButHonoursAnExplicitOne(TestMongo mongo) throws Exception {
        Map<String, String> config = WeldNodes.settings(mongo, mongo.freshDatabase(),
                "mongolock.wait-time", "PT30S",
                Skipping.class.getName() + "/skipAfterOverride/Locked/wait-time", "PT0.4S");
        try (WeldContainer node = WeldNodes.start("skipping", config, Skipping.class)) {
            assertEquals(LockOptions.defaults().waitTime(Duration.ZERO), options(node, Skipping.class, "skipNow"),
                    "mongolock.wait-time (PT30S) is for FAIL; SKIP with no wait time of its own does not wait");
            assertEquals(LockOptions.defaults().waitTime(Duration.ofMillis(400)), options(node, Skipping.class, "skipAfterOverride"));
        }
    }

    @Test
    void theMinimumHoldIsOverriddenLikeTheOtherDurations(TestMongo mongo) throws Exception {
        String skipping = Skipping.class.getName();
        Map<String, String> config = WeldNodes.settings(mongo, mongo.freshDatabase(),
                skipping + "/heldAtLeast/Locked/hold-at-least", "PT2M",
                "Locked/hold-at-least", "PT1M");
        try (WeldContainer node = WeldNodes.start("held", config, Skipping.class)) {
            assertEquals(Duration.ofMinutes(2), options(node, Skipping.class, "heldAtLeast").holdAtLeast(), "method key");
            assertEquals(Duration.ofMinutes(1), options(node, Skipping.class, "skipNow").holdAtLeast(), "global key");
        }
        try (WeldContainer node = WeldNodes.start("held-annotated", WeldNodes.settings(mongo, mongo.freshDatabase()),
                Skipping.class)) {
            assertEquals(Duration.ofSeconds(7), options(node, Skipping.class, "heldAtLeast").holdAtLeast(), "annotation");
            assertEquals(Duration.ZERO, options(node, Skipping.class, "skipNow").holdAtLeast(), "none");
        }
    }

    @Test
    void methodThenClassThenGlobalKeysWinOverTheAnnotation(TestMongo mongo) throws Exception {
        Map<String, String> config = WeldNodes.settings(mongo, mongo.freshDatabase(),
                TUNED + "/methodWins/Locked/wait-time", "PT0.1S",
                TUNED + "/methodWins/Locked/lease-time", "PT11S",
                TUNED + "/Locked/wait-time", "PT0.2S",
                TUNED + "/Locked/lease-time", "PT12S",
                "Locked/wait-time", "PT0.3S",
                "Locked/lease-time", "PT13S");
        try (WeldContainer node = WeldNodes.start("overrides", config, Tuned.class, Plain.class)) {
            assertEquals(options("PT0.1S", "PT11S"), options(node, Tuned.class, "methodWins"));
            assertEquals(options("PT0.2S", "PT12S"), options(node, Tuned.class, "classWins"));
            assertEquals(options("PT0.3S", "PT13S"), options(node, Plain.class, "annotated"));
            assertEquals(options("PT0.3S", "PT13S"), options(node, Plain.class, "defaults"));

            // The resolved values are the ones used: the lease is stored, the wait is how long FAIL waits.
            assertLease(node.select(Tuned.class).get().methodWins(), Duration.ofSeconds(11));
            assertLease(node.select(Tuned.class).get().classWins(), Duration.ofSeconds(12));
            LockManager locks = node.select(LockManager.class).get();
            try (LockedInterceptorTest.Held held = LockedInterceptorTest.Held.elsewhere(locks, "method-wins")) {
                long start = System.nanoTime();
                assertThrows(LockTimeoutException.class, node.select(Tuned.class).get()::methodWins);
                long waited = Duration.ofNanos(System.nanoTime() - start).toMillis();
                assertTrue(waited < 900, "waited " + waited + " ms: the method key PT0.1S, not the annotation's PT1S");
            }
        }
    }

    @Test
    void withoutOverridesTheAnnotationAndThenTheManagerDefaultsApply(TestMongo mongo) {
        Map<String, String> config = WeldNodes.settings(mongo, mongo.freshDatabase(),
                "mongolock.lease-time", "PT21S", "mongolock.wait-time", "PT2S");
        try (WeldContainer node = WeldNodes.start("no-overrides", config, Plain.class)) {
            assertEquals(options("PT1S", "PT40S"), options(node, Plain.class, "annotated"));
            assertEquals(LockOptions.defaults(), options(node, Plain.class, "defaults"));
            assertLease(node.select(Plain.class).get().annotated(), Duration.ofSeconds(40));
            assertLease(node.select(Plain.class).get().defaults(), Duration.ofSeconds(21));
        }
    }

    private static LockOptions options(String wait, String lease) {
        return LockOptions.defaults().waitTime(Duration.parse(wait)).leaseTime(Duration.parse(lease));
    }

    private static LockOptions options(WeldContainer node, Class<?> beanClass, String method) throws RuntimeException {
        try {
            Optional<LockedOperation> operation = node.select(MongoLockExtension.class).get()
                    .resolved(beanClass, beanClass.getMethod(method));
            LockOptions resolved = operation.orElseThrow(() -> new AssertionError("not resolved at deployment: " + method))
                    .options();
            assertEquals(Optional.of(operation.get().names().get(0).toString()), resolved.metricsGroup(),
                    "metrics report the name template");
            // The durations, as the assertions compare them.
            LockOptions durations = LockOptions.defaults().holdAtLeast(resolved.holdAtLeast());
            durations = resolved.waitTime().map(durations::waitTime).orElse(durations);
            return resolved.leaseTime().map(durations::leaseTime).orElse(durations);
        } catch (NoSuchMethodException missing) {
            throw new AssertionError(missing);
        }
    }

    /** The stored expiry is about {@code lease} from now (the stand-in's clock is this machine's). */
    private static void assertLease(LockInfo info, Duration lease) {
        Duration left = Duration.between(Instant.now(), info.expiresAt());
        assertTrue(left.compareTo(lease.minusSeconds(3)) > 0 && left.compareTo(lease.plusSeconds(1)) <= 0,
                info.name() + " expires in " + left + ", expected about " + lease);
    }
}
