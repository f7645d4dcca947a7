package io.github.mongolock.testing;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Field;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import io.github.mongolock.testing.wallclock.ReadsTheWallClock;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.Date;
import java.util.List;
import java.util.function.Supplier;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The stepped clock of the stand-in ({@link SteppedClockStandIn}): mongo-java-server's {@code $currentDate}
 * and {@code $$NOW} (in a {@code $expr} filter and in an aggregation) follow each offset as soon as
 * {@code setOffset} returns, fractions of a second included; the stand-in serves at its usual speed right
 * after a step; and the class loader behind it redirects every way of reading the wall clock it claims to,
 * refuses the others, and leaves the monotonic clock alone.
 */
class SteppedClockStandInTest {

    /** Test and stand-in read the same system clock; stored dates are cut to the millisecond. */
    private static final long TOLERANCE_MILLIS = 20;
    /** A {@code $expr} window can only be judged when its query came back within this. */
    private static final long QUERY_SLACK_MILLIS = 300;
    /** libfaketime's stand-in stalled 1.5 to 2.6 s after a forward step; a request here takes milliseconds. */
    private static final Duration FIRST_REQUEST_AFTER_A_STEP = Duration.ofSeconds(1);

    private static TestMongo mongo;
    private static SteppedClockStandIn standIn;
    private static MongoCollection<Document> clock;

    @BeforeAll
    static void start() {
        long begin = System.nanoTime();
        mongo = TestMongo.startSteppedClock(Path.of("target", "stepped-clock-test"));
        standIn = mongo.steppedClock().orElseThrow();
        clock = mongo.collection(mongo.freshDatabase(), "clock");
        clock.insertOne(new Document("_id", "clock"));
        System.out.printf("[stepped clock] stand-in started and answered in %d ms%n", (System.nanoTime() - begin) / 1_000_000);
    }

    @AfterAll
    static void stop() {
        if (mongo != null) {
            mongo.close();
        }
    }

    @Test
    void currentDateAndNowFollowEveryStepOnceSetOffsetReturns() throws IOException {
        List<Duration> offsets = List.of(Duration.ZERO, Duration.ofSeconds(60), Duration.ofSeconds(-60),
                Duration.ofMillis(4_500), Duration.ofMillis(-250), Duration.ofSeconds(6), Duration.ZERO);
        List<Long> follows = new ArrayList<>();
        // Two rounds: the second measures setOffset on a warm stand-in as the other tests use it.
        for (int round = 0; round < 2; round++) {
            for (Duration offset : offsets) {
                long start = System.nanoTime();
                standIn.setOffset(offset);
                follows.add(System.nanoTime() - start);
                // No wait: the first request after setOffset must already see the offset.
                assertCurrentDateFollows(offset);
                assertAggregationNowFollows(offset);
                assertFilterNowFollows(offset);
            }
        }
        List<Long> sorted = follows.stream().sorted().toList();
        long max = sorted.get(sorted.size() - 1);
        System.out.printf("[stepped clock] setOffset returned, the offset applied, after %.2f ms median, %.2f ms at most"
                + " (%d steps; FOLLOWS_WITHIN %d ms)%n", sorted.get(sorted.size() / 2) / 1e6, max / 1e6, sorted.size(),
                SteppedClockStandIn.FOLLOWS_WITHIN.toMillis());
        assertTrue(max <= SteppedClockStandIn.FOLLOWS_WITHIN.toNanos(),
                "setOffset took " + max / 1e6 + " ms, more than FOLLOWS_WITHIN " + SteppedClockStandIn.FOLLOWS_WITHIN);
    }

    private static void assertCurrentDateFollows(Duration offset) {
        long before = System.currentTimeMillis();
        clock.updateOne(eq("_id", "clock"), Updates.currentDate("at"), new UpdateOptions().upsert(true));
        long after = System.currentTimeMillis();
        Date at = clock.find(eq("_id", "clock")).first().getDate("at");
        assertWithin("$currentDate", offset, at.getTime(), before, after);
    }

    private static void assertAggregationNowFollows(Duration offset) {
        long before = System.currentTimeMillis();
        Document read = clock.aggregate(List.of(Aggregates.match(eq("_id", "clock")),
                Aggregates.addFields(new Field<>("now", "$$NOW")))).first();
        long after = System.currentTimeMillis();
        assertWithin("$$NOW in an aggregation", offset, read.getDate("now").getTime(), before, after);
    }

    /**
     * A filter cannot return {@code $$NOW}, so it is asked twice: whether {@code $$NOW} lies in a window
     * starting at the expected time (it must), and in the same window a second later (it must not: the
     * first answer then means something).
     */
    private static void assertFilterNowFollows(Duration offset) {
        for (int attempt = 0; attempt < 5; attempt++) {
            long before = System.currentTimeMillis();
            long expected = before + offset.toMillis();
            boolean inWindow = clock.find(and(eq("_id", "clock"), nowBetween(expected - TOLERANCE_MILLIS,
                    expected + QUERY_SLACK_MILLIS))).first() != null;
            boolean aSecondLater = clock.find(and(eq("_id", "clock"), nowBetween(expected + 1_000 - TOLERANCE_MILLIS,
                    expected + 1_000 + QUERY_SLACK_MILLIS))).first() != null;
            long after = System.currentTimeMillis();
            if (after - before <= QUERY_SLACK_MILLIS) {
                assertTrue(inWindow && !aSecondLater, "$$NOW in a $expr filter at offset " + offset
                        + ": in the expected window " + inWindow + ", in the window a second later " + aSecondLater);
                return;
            }
        }
        fail("five pairs of $expr queries in a row took over " + QUERY_SLACK_MILLIS + " ms: the window cannot be judged");
    }

    private static Bson nowBetween(long fromMillis, long toMillis) {
        return Filters.expr(new Document("$and", List.of(
                new Document("$gte", List.of("$$NOW", new Date(fromMillis))),
                new Document("$lte", List.of("$$NOW", new Date(toMillis))))));
    }

    private static void assertWithin(String what, Duration offset, long readMillis, long before, long after) {
        long real = readMillis - offset.toMillis();
        assertTrue(real >= before - TOLERANCE_MILLIS && real <= after + TOLERANCE_MILLIS, what + " at offset " + offset
                + " read " + Instant.ofEpochMilli(readMillis) + ", which is " + (real - before) + " ms from the real time"
                + " when the request was sent (it took " + (after - before) + " ms)");
    }

    @Test
    void servesAtItsUsualSpeedRightAfterAStep() throws IOException {
        standIn.setOffset(Duration.ZERO);
        requests(100); // warm-up
        long usual = requests(200);
        for (Duration step : List.of(Duration.ofSeconds(6), Duration.ofSeconds(-60), Duration.ofSeconds(6), Duration.ZERO)) {
            standIn.setOffset(step);
            long first = requests(1);
            long after = requests(200);
            System.out.printf("[stepped clock] step to %s: first request %.1f ms, then 200 requests in %d ms (%d ms before"
                    + " any step)%n", step, first / 1e6, after / 1_000_000, usual / 1_000_000);
            assertAll("step to " + step,
                    () -> assertTrue(first <= FIRST_REQUEST_AFTER_A_STEP.toNanos(),
                            "the first request after the step took " + first / 1_000_000 + " ms"),
                    () -> assertTrue(after <= 3 * usual + Duration.ofSeconds(1).toNanos(), "200 requests took "
                            + after / 1_000_000 + " ms after the step, " + usual / 1_000_000 + " ms before any"));
        }
    }

    /** Nanoseconds taken by {@code count} writes with {@code $currentDate}, each read back, one after the other. */
    private static long requests(int count) {
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            clock.updateOne(eq("_id", "speed"), Updates.combine(Updates.inc("n", 1), Updates.currentDate("at")),
                    new UpdateOptions().upsert(true));
            clock.find(eq("_id", "speed")).first();
        }
        return System.nanoTime() - start;
    }

    @Test
    void offsetsAreWrittenAsBefore() {
        assertEquals(Duration.ofSeconds(6), SteppedClockStandIn.parseOffset("+6s"));
        assertEquals(Duration.ofSeconds(-60), SteppedClockStandIn.parseOffset("-60s"));
        assertEquals(Duration.ZERO, SteppedClockStandIn.parseOffset("+0s"));
        assertEquals(Duration.ofMillis(4_500), SteppedClockStandIn.parseOffset("+4.5s"));
        assertEquals(Duration.ofNanos(-1), SteppedClockStandIn.parseOffset("-0.000000001s"));
        assertThrows(IllegalArgumentException.class, () -> SteppedClockStandIn.parseOffset("6s"));
        assertThrows(IllegalArgumentException.class, () -> SteppedClockStandIn.parseOffset("+6"));
    }

    @Test
    void everyRedirectedReadFollowsTheOffsetAndTheMonotonicClockStaysReal() throws Exception {
        Path classes = Path.of(ReadsTheWallClock.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        WallClockRedirectingClassLoader loader = WallClockRedirectingClassLoader.of(getClass().getClassLoader(),
                ReadsTheWallClock.class.getPackageName() + ".", List.of(classes));
        Class<?> rewritten = loader.loadClass(ReadsTheWallClock.class.getName());
        assertNotSame(ReadsTheWallClock.class, rewritten);
        List<String> readings = List.of("instantNow", "currentTimeMillis", "newDate", "localDateTimeNow",
                "zonedDateTimeNowInZone", "clockSystemUtc", "clockSystemDefaultZone", "clockSystemInZone");
        assertEquals(readings.size(), loader.redirected().size(), () -> "redirected: " + loader.redirected());
        Duration offset = Duration.ofHours(-1).minusMillis(250);
        SteppedWallClock.setOffset(offset);
        try {
            for (String reading : readings) {
                long before = System.currentTimeMillis();
                Instant stepped = (Instant) rewritten.getMethod(reading).invoke(null);
                Instant real = (Instant) ReadsTheWallClock.class.getMethod(reading).invoke(null);
                long after = System.currentTimeMillis();
                assertWithin(reading + " rewritten", offset, stepped.toEpochMilli(), before, after);
                // The same code loaded the usual way reads the real clock: the loader, nothing else, steps it.
                assertWithin(reading + " as compiled", Duration.ZERO, real.toEpochMilli(), before, after);
            }
            long monotonic = (long) rewritten.getMethod("nanoTime").invoke(null);
            assertTrue(Math.abs(System.nanoTime() - monotonic) < Duration.ofSeconds(1).toNanos(),
                    "System.nanoTime moved with the wall clock's offset");
        } finally {
            SteppedWallClock.setOffset(Duration.ZERO);
        }
    }

    @Test
    void readsThatCannotBeRedirectedAreRefused() throws IOException {
        IllegalStateException calendar = assertThrows(IllegalStateException.class,
                () -> WallClockRedirectingClassLoader.rewrite(bytes(CalendarReader.class), new ArrayList<>()));
        assertTrue(calendar.getMessage().contains("CalendarReader.now") && calendar.getMessage().contains("Calendar.getInstance"),
                calendar.getMessage());
        IllegalStateException reference = assertThrows(IllegalStateException.class,
                () -> WallClockRedirectingClassLoader.rewrite(bytes(MethodReferenceReader.class), new ArrayList<>()));
        assertTrue(reference.getMessage().contains("method reference to java/time/Instant.now"), reference.getMessage());
    }

    /** What the stand-in's JVM relies on: mongo-java-server's reads for $currentDate, $$NOW and the backend's clock are found. */
    @Test
    void mongoJavaServersReadsOfTheWallClockAreAllRedirected() throws Exception {
        List<Path> jars = new ArrayList<>();
        for (Class<?> type : List.of(de.bwaldvogel.mongo.MongoServer.class, de.bwaldvogel.mongo.backend.memory.MemoryBackend.class)) {
            jars.add(Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()));
        }
        List<String> redirected = WallClockRedirectingClassLoader.of(getClass().getClassLoader(), "de.bwaldvogel.", jars)
                .redirected();
        System.out.println("[stepped clock] mongo-java-server's wall-clock reads, all redirected: " + redirected);
        assertTrue(redirected.containsAll(List.of(
                "de.bwaldvogel.mongo.backend.FieldUpdates.handleCurrentDate: java/time/Instant.now",
                "de.bwaldvogel.mongo.backend.aggregation.Expression.evaluate: java/time/Instant.now",
                "de.bwaldvogel.mongo.backend.AbstractMongoBackend.defaultClock: java/time/Clock.systemDefaultZone")),
                () -> "redirected: " + redirected);
    }

    private static byte[] bytes(Class<?> type) throws IOException {
        // A nested class's file is named after its binary name: SteppedClockStandInTest$CalendarReader.class.
        try (InputStream in = type.getResourceAsStream(type.getName().substring(type.getPackageName().length() + 1) + ".class")) {
            return in.readAllBytes();
        }
    }

    /** Reads the wall clock through Calendar, which the loader cannot redirect. */
    static final class CalendarReader {
        static long now() {
            return Calendar.getInstance().getTimeInMillis();
        }
    }

    /** Hands the wall clock out as a method reference, which the loader cannot redirect. */
    static final class MethodReferenceReader {
        static Supplier<Instant> now() {
            return Instant::now;
        }
    }
}
