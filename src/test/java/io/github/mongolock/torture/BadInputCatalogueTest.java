package io.github.mongolock.torture;

import static com.mongodb.client.model.Filters.eq;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoCollection;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bad input catalogue: odd lock names and durations each get a clear
 * {@link LockConfigurationException} quoting the value, or simply work; and none of them changes
 * another lock's document (a sentinel lock held by another manager throughout).
 */
@ExtendWith(MongoBackend.class)
class BadInputCatalogueTest {

    /** Lock documents only (string ids): not the sessions' or the collection state's. */
    private static final org.bson.conversions.Bson LOCK_DOCUMENTS = com.mongodb.client.model.Filters.type("_id", "string");

    private static final String SENTINEL = "sentinel";
    private static final Duration ENORMOUS = Duration.ofSeconds(Long.MAX_VALUE);

    private MongoLockManager locks;
    private MongoLockManager sentinelHolder;
    private LockSession sentinel;
    private MongoCollection<Document> collection;

    @BeforeEach
    void start(TestMongo mongo) {
        String database = mongo.freshDatabase();
        locks = MongoLockManager.builder().client(mongo.client()).database(database).waitTime(Duration.ofSeconds(2)).build();
        sentinelHolder = MongoLockManager.builder().client(mongo.client()).database(database).build();
        sentinel = sentinelHolder.acquire(SENTINEL);
        collection = mongo.collection(database, MongoLockManager.DEFAULT_COLLECTION);
    }

    @AfterEach
    void stop() {
        sentinel.close();
        sentinelHolder.close();
        locks.close();
    }

    static Stream<Arguments> names() {
        return Stream.of(
                Arguments.of("empty", "", "\"\""),
                Arguments.of("null", null, "null"),
                Arguments.of("10 KB long", "x".repeat(10 * 1024), "10240 UTF-8 bytes"),
                Arguments.of("513 bytes", "y".repeat(513), "513 UTF-8 bytes"),
                Arguments.of("NUL inside", "a\0b", "NUL character at index 1"),
                Arguments.of("NUL only", "\0", "NUL character at index 0"),
                Arguments.of("512 bytes", "z".repeat(512), null),
                Arguments.of("$-prefixed", "$where", null),
                Arguments.of("$set", "$set", null),
                Arguments.of("dotted", "orders.2024.q1", null),
                Arguments.of("dot only", ".", null),
                Arguments.of("unicode", "Zählung-ロック-🔒", null),
                Arguments.of("right-to-left", "\u202Eabc", null),
                Arguments.of("blank", " ", null),
                Arguments.of("JSON operator", "{\"$gt\": \"\"}", null),
                Arguments.of("JSON not-equal", "{\"$ne\": null}", null),
                Arguments.of("operator-like", "$$NOW", null),
                Arguments.of("regex-like", ".*", null),
                // Issue 34: bytes are counted, not characters; control characters are legal and shown escaped.
                Arguments.of("170 euro signs, 510 bytes", "€".repeat(170), null),
                Arguments.of("171 euro signs, 513 bytes", "€".repeat(171), "is 513 UTF-8 bytes long"),
                Arguments.of("newline, tab, escape, bell", "line\nbreak\ttab\u001b[31m\u0007", null),
                Arguments.of("too long with a newline", "a\nb" + "c".repeat(600), "Lock name \"a\\u000Abccc"),
                Arguments.of("lone surrogate", "cut-\uD83D", "has a lone surrogate \\uD83D at index 4: "),
                Arguments.of("too long, cut inside an emoji", "d".repeat(79) + "🔒".repeat(200), "dd...(479 chars)\" is 879 UTF-8 bytes long"));
    }

    @ParameterizedTest(name = "lock name: {0}")
    @MethodSource("names")
    void lockNames(String label, String name, String expectedInMessage) {
        Document sentinelBefore = sentinelDocument();
        long documentsBefore = collection.countDocuments(LOCK_DOCUMENTS);
        if (expectedInMessage != null) {
            List<Executable> calls = List.of(() -> locks.acquire(name), () -> locks.tryAcquire(name),
                    () -> locks.acquire(name, Duration.ZERO), () -> locks.inspect(name));
            for (Executable call : calls) {
                LockConfigurationException refused = assertThrows(LockConfigurationException.class, call, label);
                assertTrue(refused.getMessage().contains(expectedInMessage),
                        label + ": message should contain " + expectedInMessage + ": " + refused.getMessage());
                assertTrue(refused.getMessage().chars().noneMatch(Character::isISOControl)
                        && refused.getMessage().length() < 400, label + ": control characters escaped, a long name cut: "
                        + refused.getMessage());
                assertTrue(refused.getMessage().codePoints().noneMatch(c -> c >= Character.MIN_SURROGATE
                        && c <= Character.MAX_SURROGATE), label + ": no half of a character: " + refused.getMessage());
            }
            assertEquals(documentsBefore, collection.countDocuments(LOCK_DOCUMENTS), label + ": nothing may be written");
        } else {
            try (LockSession session = locks.acquire(name)) {
                assertTrue(session.isHeld(), label);
                assertEquals(name, session.name());
                Document stored = collection.find(eq("_id", name)).first();
                assertTrue(stored != null && stored.getInteger("holds") == 1, label + ": stored as its own document " + stored);
                assertTrue(locks.inspect(name).isPresent(), label);
                assertTrue(sentinelHolder.tryAcquire(name).isEmpty(), label + ": another manager must be excluded");
            }
            assertTrue(locks.inspect(name).isEmpty(), label + ": released");
            assertEquals(documentsBefore + 1, collection.countDocuments(LOCK_DOCUMENTS), label + ": exactly one new document");
        }
        assertSentinelUnchanged(sentinelBefore, label);
    }

    /** The example of docs/configuration.md, "Lock names", word for word. */
    @org.junit.jupiter.api.Test
    void theDocumentedMessage() {
        LockConfigurationException refused = assertThrows(LockConfigurationException.class,
                () -> locks.acquire("a\nb" + "c".repeat(600)));
        assertEquals("Lock name \"a\\u000Ab" + "c".repeat(77) + "...(603 chars)\" is 603 UTF-8 bytes long: at most 512 are"
                + " allowed. Use a shorter name, e.g. a hash of the long key.", refused.getMessage());
    }

    static Stream<Arguments> durations() {
        return Stream.of(
                Arguments.of("lease zero", LockOptions.defaults().leaseTime(Duration.ZERO), "leaseTime = PT0S"),
                Arguments.of("lease negative", LockOptions.defaults().leaseTime(Duration.ofSeconds(-5)), "leaseTime = PT-5S"),
                Arguments.of("lease below minimum", LockOptions.defaults().leaseTime(Duration.ofMillis(99)), "leaseTime = PT0.099S"),
                Arguments.of("lease enormous", LockOptions.defaults().leaseTime(ENORMOUS), "leaseTime = " + ENORMOUS),
                Arguments.of("lease 366 days", LockOptions.defaults().leaseTime(Duration.ofDays(366)), "leaseTime = PT8784H"),
                Arguments.of("wait negative", LockOptions.defaults().waitTime(Duration.ofMillis(-1)), "waitTime = PT-0.001S"),
                Arguments.of("wait negative enormous", LockOptions.defaults().waitTime(Duration.ofSeconds(Long.MIN_VALUE)),
                        "waitTime = " + Duration.ofSeconds(Long.MIN_VALUE)),
                Arguments.of("lease minimum", LockOptions.defaults().leaseTime(Duration.ofMillis(100)), null),
                Arguments.of("lease 365 days", LockOptions.defaults().leaseTime(Duration.ofDays(365)), null),
                Arguments.of("wait zero", LockOptions.defaults().waitTime(Duration.ZERO), null),
                Arguments.of("wait enormous", LockOptions.defaults().waitTime(ENORMOUS), null));
    }

    @ParameterizedTest(name = "duration: {0}")
    @MethodSource("durations")
    void durations(String label, LockOptions options, String expectedInMessage) {
        Document sentinelBefore = sentinelDocument();
        String name = "durations";
        if (expectedInMessage != null) {
            for (Executable call : List.<Executable>of(() -> locks.acquire(name, options), () -> locks.tryAcquire(name, options))) {
                LockConfigurationException refused = assertThrows(LockConfigurationException.class, call, label);
                assertTrue(refused.getMessage().contains(expectedInMessage),
                        label + ": message should contain " + expectedInMessage + ": " + refused.getMessage());
            }
            assertTrue(locks.inspect(name).isEmpty(), label + ": nothing held");
        } else {
            try (LockSession session = locks.acquire(name, options)) {
                assertTrue(session.isHeld(), label);
            }
            // A busy lock with a zero or enormous wait: one attempt, or a wait ended by the release.
            try (LockSession held = sentinelHolder.acquire(name)) {
                assertTrue(locks.tryAcquire(name, options.waitTime().isPresent() && options.waitTime().get().isZero()
                        ? options : options.waitTime(Duration.ofMillis(50))).isEmpty(), label);
                assertTrue(held.isHeld());
            }
        }
        assertSentinelUnchanged(sentinelBefore, label);
    }

    static Stream<Arguments> waitsForAcquireWithDuration() {
        return Stream.of(Arguments.of(Duration.ofSeconds(-1), "waitFor = PT-1S"),
                Arguments.of(Duration.ofNanos(-1), "waitFor = PT-0.000000001S"));
    }

    @ParameterizedTest(name = "acquire(name, {0})")
    @MethodSource("waitsForAcquireWithDuration")
    void negativeWaitForAcquire(Duration wait, String expectedInMessage) {
        LockConfigurationException refused = assertThrows(LockConfigurationException.class,
                () -> locks.acquire("negative-wait", wait));
        assertTrue(refused.getMessage().contains(expectedInMessage), refused.getMessage());
    }

    static Stream<Arguments> builderDurations() {
        return Stream.of(
                Arguments.of("leaseTime zero", (Builderish) b -> b.leaseTime(Duration.ZERO), "leaseTime = PT0S"),
                Arguments.of("leaseTime negative", (Builderish) b -> b.leaseTime(Duration.ofMinutes(-1)), "leaseTime = PT-1M"),
                Arguments.of("leaseTime enormous", (Builderish) b -> b.leaseTime(ENORMOUS), "leaseTime = " + ENORMOUS),
                Arguments.of("waitTime negative", (Builderish) b -> b.waitTime(Duration.ofSeconds(-3)), "waitTime = PT-3S"),
                Arguments.of("storeTimeout zero", (Builderish) b -> b.storeTimeout(Duration.ZERO), "storeTimeout = PT0S"),
                Arguments.of("storeTimeout negative", (Builderish) b -> b.storeTimeout(Duration.ofSeconds(-1)),
                        "storeTimeout = PT-1S"));
    }

    /** One builder setting under test. */
    @FunctionalInterface
    interface Builderish {
        MongoLockManager.Builder apply(MongoLockManager.Builder builder);
    }

    @ParameterizedTest(name = "builder: {0}")
    @MethodSource("builderDurations")
    void builderDurations(String label, Builderish setting, String expectedInMessage, TestMongo mongo) {
        LockConfigurationException refused = assertThrows(LockConfigurationException.class,
                () -> setting.apply(MongoLockManager.builder().uri(mongo.uri()).database("unused")).build(), label);
        assertTrue(refused.getMessage().contains(expectedInMessage),
                label + ": message should contain " + expectedInMessage + ": " + refused.getMessage());
    }

    private Document sentinelDocument() {
        return collection.find(eq("_id", SENTINEL)).first();
    }

    /** Everything but the renewal time, which the sentinel's own renewer moves. */
    private void assertSentinelUnchanged(Document before, String label) {
        Document after = sentinelDocument();
        List<Executable> checks = new ArrayList<>();
        for (String field : List.of("owner", "holds", "version", "token", "leaseMs", "acquiredAt")) {
            checks.add(() -> assertEquals(before.get(field), after.get(field), label + ": sentinel field " + field));
        }
        checks.add(() -> assertTrue(sentinel.isHeld(), label + ": sentinel still held"));
        assertAll(checks);
    }
}
