package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.Locked;
import io.github.mongolock.OnLeaseLost;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigValue;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.eclipse.microprofile.config.spi.Converter;
import org.jboss.weld.environment.se.Weld;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every problem the extension detects stops the deployment, all of them reported at once, each naming what to fix. */
@ExtendWith(MongoBackend.class)
class DeploymentErrorTest {

    @ApplicationScoped
    public static class Broken {
        @Locked(waitTime = "5 seconds")
        public void badWait() {
        }

        @Locked(leaseTime = "PT0.01S")
        public void shortLease() {
        }

        @Locked(waitTime = "-PT1S")
        public void negativeWait() {
        }

        @Locked("account-{2}")
        public void outOfRange(String account) {
        }

        @Locked("account-{acount}")
        public void unknownName(String account, int region) {
        }

        @Locked("account-{0")
        public void unclosed(String account) {
        }

        @Locked("account-}")
        public void strayBrace() {
        }

        @Locked("account-{0.id}")
        public void notAReference(String account) {
        }

        @Locked(value = "report", onBusy = Locked.OnBusy.SKIP)
        public String skipWithValue() {
            return "value";
        }

        @Locked(value = "report", onBusy = Locked.OnBusy.SKIP)
        public int skipWithPrimitive() {
            return 1;
        }

        @Locked(value = "report", onBusy = Locked.OnBusy.SKIP)
        public LockedInterceptorTest.OwnFuture<String> skipWithOwnStage() {
            return null;
        }

        @Locked("bad\0name")
        public void nulInName() {
        }

        @Locked("fine")
        public void overriddenBadly() {
        }

        @Locked(value = "job", holdAtLeast = "-PT1S")
        public void negativeHold() {
        }

        @Locked(value = "job", holdAtLeast = "a while")
        public void wordyHold() {
        }

        @Locked(value = "job", onLeaseLost = OnLeaseLost.CANCEL)
        public void cancelWithoutStage() {
        }

        @Locked(value = "job", onLeaseLost = OnLeaseLost.INTERRUPT)
        public CompletionStage<String> interruptAStage() {
            return null;
        }

        /** As an EJB timer callback (@Schedule) may be: private, intercepted through @AroundTimeout. */
        @Locked("timer-{0}")
        private void privateTimer() {
        }
    }

    @ApplicationScoped
    public static class Fine {
        @Locked(value = "a", onBusy = Locked.OnBusy.SKIP)
        public void nothing() {
        }

        @Locked(value = "b", onBusy = Locked.OnBusy.SKIP)
        public Void alsoNothing() {
            return null;
        }

        @Locked(value = "c", onBusy = Locked.OnBusy.SKIP)
        public Optional<String> maybe() {
            return Optional.empty();
        }

        @Locked(value = "d-{0}", onBusy = Locked.OnBusy.SKIP)
        public CompletableFuture<String> later(int id) {
            return CompletableFuture.completedFuture("x");
        }

        @Locked(value = "e", onBusy = Locked.OnBusy.SKIP, holdAtLeast = "PT5M", onLeaseLost = OnLeaseLost.INTERRUPT)
        public void nightly() {
        }

        @Locked(value = "f", onLeaseLost = OnLeaseLost.CANCEL)
        public CompletionStage<String> cancellable() {
            return CompletableFuture.completedFuture("x");
        }
    }

    private static final String BROKEN = Broken.class.getName();

    @Test
    void everyProblemIsReportedAtOnceWithWhatToFix() {
        Map<String, String> config = new HashMap<>();
        config.put("mongolock.lease-time", "thirty seconds");
        config.put("mongolock.interceptor.priority", "high");
        config.put(BROKEN + "/overriddenBadly/Locked/wait-time", "soon");
        config.put(BROKEN + "/Locked/lease-time", "P400D");
        String report = deploymentFailure(config, Broken.class);

        List<String> expected = List.of(
                "MONGOLOCK-CDI-001: mongolock.lease-time = \"thirty seconds\" is not an ISO-8601 duration: write e.g. PT5S, PT2M or PT0.5S.",
                "MONGOLOCK-CDI-013: mongolock.interceptor.priority = \"high\" is not an integer",
                "MONGOLOCK-CDI-009: No MongoDB connection configured for mongolock: set mongolock.uri",
                "MONGOLOCK-CDI-001: @Locked(waitTime) on " + BROKEN + ".badWait() = \"5 seconds\" is not an ISO-8601 duration",
                "MONGOLOCK-CDI-002: " + BROKEN + "/Locked/lease-time = \"P400D\" is out of range: a lease time must be"
                        + " between PT0.1S and PT8760H (ISO-8601, e.g. PT30S).",
                "MONGOLOCK-CDI-002: @Locked(leaseTime) on " + BROKEN + ".shortLease() = \"PT0.01S\" is out of range",
                "MONGOLOCK-CDI-002: @Locked(waitTime) on " + BROKEN + ".negativeWait() = \"-PT1S\" is negative: a wait time"
                        + " must be zero (one attempt) or positive, e.g. PT5S.",
                "MONGOLOCK-CDI-003: @Locked(\"account-{2}\") on " + BROKEN + ".outOfRange(String) refers to argument {2},"
                        + " but the method has 1 parameter(s) ({0} to {0}).",
                "MONGOLOCK-CDI-003: @Locked(\"timer-{0}\") on " + BROKEN + ".privateTimer() refers to argument {0},"
                        + " but the method has 0 parameter(s).",
                "MONGOLOCK-CDI-004: @Locked(\"account-{acount}\") on " + BROKEN + ".unknownName(String, int) refers to {acount},"
                        + " but the method has no parameter of that name; its parameters are [account, region].",
                "MONGOLOCK-CDI-006: @Locked(\"account-{0\") on " + BROKEN + ".unclosed(String): the '{' is never closed at index 8.",
                "MONGOLOCK-CDI-006: @Locked(\"account-}\") on " + BROKEN + ".strayBrace(): a '}' closes no reference at index 8.",
                "MONGOLOCK-CDI-006: @Locked(\"account-{0.id}\") on " + BROKEN + ".notAReference(String): {0.id} is neither an"
                        + " argument position nor a parameter name",
                "MONGOLOCK-CDI-008: @Locked(onBusy = SKIP) on " + BROKEN + ".skipWithValue(), which returns java.lang.String:"
                        + " a skipped call must return nothing",
                "MONGOLOCK-CDI-008: @Locked(onBusy = SKIP) on " + BROKEN + ".skipWithPrimitive(), which returns int",
                "MONGOLOCK-CDI-008: @Locked(onBusy = SKIP) on " + BROKEN + ".skipWithOwnStage(), which returns "
                        + LockedInterceptorTest.OwnFuture.class.getName() + "<java.lang.String>",
                "MONGOLOCK-CDI-007: @Locked on " + BROKEN + ".nulInName() gives an invalid lock name: Lock name \"bad\\u0000name\""
                        + " contains a NUL character",
                "MONGOLOCK-CDI-001: " + BROKEN + "/overriddenBadly/Locked/wait-time = \"soon\" is not an ISO-8601 duration",
                "MONGOLOCK-CDI-016: @Locked(holdAtLeast) on " + BROKEN + ".negativeHold() = \"-PT1S\" is out of range: a"
                        + " minimum hold must be between PT0S (none) and PT8760H (ISO-8601, e.g. PT5M).",
                "MONGOLOCK-CDI-001: @Locked(holdAtLeast) on " + BROKEN + ".wordyHold() = \"a while\" is not an ISO-8601 duration",
                "MONGOLOCK-CDI-017: @Locked(onLeaseLost = CANCEL) on " + BROKEN + ".cancelWithoutStage(), which returns void:"
                        + " only a returned CompletionStage can be cancelled. Use INTERRUPT",
                "MONGOLOCK-CDI-017: @Locked(onLeaseLost = INTERRUPT) on " + BROKEN + ".interruptAStage(), which returns"
                        + " java.util.concurrent.CompletionStage<java.lang.String>: the method returns before the stage's work"
                        + " is done, so there is no thread to interrupt for it. Use CANCEL");
        for (String message : expected) {
            assertTrue(report.contains(message), "missing: " + message + "\nin:\n" + report);
        }
        Map<String, Long> byId = ids(report);
        System.out.println("[mongolock tests] deployment problems reported at once: " + byId);
        assertEquals(22, byId.values().stream().mapToLong(Long::longValue).sum(), byId.toString());
        // One definition error each: the class-level override, checked for all 18 methods of Broken, counts once.
        assertTrue(report.contains("Exception List with 22 exceptions"), report);
    }

    @Test
    void validAnnotationsDeployWhereSkipCanReturnNothing(TestMongo mongo) {
        try (var container = WeldNodes.start("fine", WeldNodes.settings(mongo, mongo.freshDatabase()), Fine.class)) {
            assertTrue(container.isRunning());
        }
    }

    @Test
    void anInvalidUriIsReportedWithoutItsPassword() {
        String report = deploymentFailure(Map.of("mongolock.uri", "mongodb://user:secret@host:notaport/app"), Fine.class);
        assertTrue(report.contains("MONGOLOCK-CDI-010: mongolock.uri = \"mongodb://***@host:notaport/app\" is not a valid"
                + " MongoDB connection string"), report);
        assertTrue(!report.contains("secret"), report);
    }

    @Test
    void aDatabaseIsRequired(TestMongo mongo) {
        String report = deploymentFailure(Map.of("mongolock.uri", mongo.uri()), Fine.class);
        assertTrue(report.contains("MONGOLOCK-CDI-011: No database configured for the lock collection: set mongolock.database"
                + " or name the database in mongolock.uri (mongodb://host/<database>)."), report);
    }

    @Test
    void theDatabaseInTheUriMustBeValid(TestMongo mongo) {
        String report = deploymentFailure(Map.of("mongolock.uri", mongo.uri() + "/bad%20db"), Fine.class);
        assertTrue(report.contains("MONGOLOCK-CDI-010: mongolock.uri = \"" + mongo.uri() + "/bad%20db\" is not a valid MongoDB"
                + " connection string: state should be: databaseName does not contain ' '"), report);
    }

    @Test
    void anUnreadableValueIsReported(TestMongo mongo) {
        Config readable = WeldNodes.config(WeldNodes.settings(mongo, "app"));
        Config failing = new Config() {
            @Override
            public <T> T getValue(String name, Class<T> type) {
                return readable.getValue(name, type);
            }

            @Override
            public ConfigValue getConfigValue(String name) {
                return readable.getConfigValue(name);
            }

            @Override
            public <T> Optional<T> getOptionalValue(String name, Class<T> type) {
                if (name.equals("mongolock.collection")) {
                    throw new NoSuchElementException("could not expand ${no.such.key}");
                }
                return readable.getOptionalValue(name, type);
            }

            @Override
            public Iterable<String> getPropertyNames() {
                return readable.getPropertyNames();
            }

            @Override
            public Iterable<ConfigSource> getConfigSources() {
                return readable.getConfigSources();
            }

            @Override
            public <T> Optional<Converter<T>> getConverter(Class<T> type) {
                return readable.getConverter(type);
            }

            @Override
            public <T> T unwrap(Class<T> type) {
                return readable.unwrap(type);
            }
        };
        Weld weld = new Weld("unreadable").disableDiscovery().property("org.jboss.weld.se.shutdownHook", false)
                .addBeanClasses(Fine.class).addExtension(new MongoLockExtension(failing));
        String report = failureOf(weld);
        assertTrue(report.contains("MONGOLOCK-CDI-015: Configuration key mongolock.collection could not be read:"
                + " could not expand ${no.such.key}"), report);
    }

    @Test
    void invalidSettingsNameTheKeyAndTheValue(TestMongo mongo) {
        Map<String, String> config = WeldNodes.settings(mongo, "bad/db",
                "mongolock.collection", "system.locks",
                "mongolock.wait-time", "-PT5S",
                "mongolock.store-timeout", "PT0S",
                "mongolock.instance-id", "x".repeat(129));
        String report = deploymentFailure(config, Fine.class);
        for (String message : List.of(
                "MONGOLOCK-CDI-012: mongolock.database = \"bad/db\" is not valid",
                "MONGOLOCK-CDI-012: mongolock.collection = \"system.locks\" is not valid",
                "MONGOLOCK-CDI-002: mongolock.wait-time = \"-PT5S\" is negative",
                "MONGOLOCK-CDI-012: mongolock.store-timeout = \"PT0S\" is not valid: it must be positive",
                "MONGOLOCK-CDI-012: mongolock.instance-id = \"xxxx")) {
            assertTrue(report.contains(message), "missing: " + message + "\nin:\n" + report);
        }
        assertEquals(5, ids(report).values().stream().mapToLong(Long::longValue).sum(), report);
    }

    /** Boots a container that must fail, and answers everything it reported. */
    static String deploymentFailure(Map<String, String> config, Class<?>... beans) {
        return failureOf(WeldNodes.weld("failing-" + System.nanoTime(), config, beans));
    }

    static String failureOf(Weld weld) {
        RuntimeException failure = assertThrows(RuntimeException.class, () -> weld.initialize().close());
        StringWriter text = new StringWriter();
        failure.printStackTrace(new PrintWriter(text));
        return text.toString();
    }

    /** How often each distinct problem (id and message line) was reported. */
    private static Map<String, Long> ids(String report) {
        Matcher matcher = Pattern.compile("(MONGOLOCK-CDI-\\d{3}: [^\\n]*)").matcher(report);
        Map<String, Long> distinct = new HashMap<>();
        while (matcher.find()) {
            distinct.putIfAbsent(matcher.group(1), 1L);
        }
        return distinct.keySet().stream().collect(Collectors.groupingBy(line -> line.substring(0, 17), Collectors.counting()));
    }
}
