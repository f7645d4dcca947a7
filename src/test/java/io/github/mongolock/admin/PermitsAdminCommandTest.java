package io.github.mongolock.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockLostException;
import io.github.mongolock.LockOptions;
import io.github.mongolock.LockSession;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.PermitHold;
import io.github.mongolock.testing.Await;
import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The operator's command on semaphores: list shows them with each holder, inspect-permits, release-permits. */
@ExtendWith(MongoBackend.class)
class PermitsAdminCommandTest {

    private final TestMongo mongo;
    private String database;
    private MongoLockManager node1;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    PermitsAdminCommandTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void aManager() {
        database = mongo.freshDatabase();
        node1 = MongoLockManager.builder().client(mongo.client()).database(database).instanceId("node-1")
                .leaseTime(Duration.ofSeconds(1)).build();
    }

    @AfterEach
    void close() {
        node1.close();
    }

    private int run(String... args) {
        out.reset();
        err.reset();
        String[] all = new String[args.length + 4];
        System.arraycopy(args, 0, all, 0, args.length);
        System.arraycopy(new String[] {"--uri", mongo.uri(), "--database", database}, 0, all, args.length, 4);
        return LockAdminCommand.run(all, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void listInspectAndReleaseTheHoldersOfASemaphore() throws InterruptedException {
        assertEquals(0, run("list"), err());
        assertFalse(out().contains("SEMAPHORE"), "no semaphore in use: only the locks' table: " + out());

        LockSession lock = node1.acquire("invoice-run");
        PermitHold one = node1.permits("export", 3).acquire();
        PermitHold two = node1.permits("export", 3).acquire(2, LockOptions.defaults());
        assertEquals(0, run("list"), err());
        String[] lines = out().split("\n");
        assertTrue(lines[1].startsWith("invoice-run"), out());
        assertEquals("1 lock held or queued for", lines[2], out());
        assertTrue(lines[3].startsWith("SEMAPHORE") && lines[3].contains("LIMIT") && lines[3].contains("USED")
                && lines[3].contains("PERMITS") && lines[3].contains("SESSION") && lines[3].contains("OWNER"), out());
        assertTrue(lines[4].matches("export\\s+3\\s+3\\s+node-1\\s+1\\s+live\\s+1\\.0s\\s+\\S+\\s+-\\s+" + one.owner()), out());
        assertTrue(lines[5].matches("export\\s+3\\s+3\\s+node-1\\s+2\\s+live\\s+1\\.0s\\s+\\S+\\s+-\\s+" + two.owner()), out());
        assertEquals("1 semaphore with permits held or queued for", lines[6], out());
        assertEquals(0, run("list", "--prefix", "inv"), err());
        assertFalse(out().contains("SEMAPHORE"), "the prefix applies to semaphores too: " + out());

        assertEquals(0, run("inspect-permits", "export"), err());
        assertTrue(out().contains("semaphore: export\nlimit: 3\nused: 3\nfree: 0\n"), out());
        assertTrue(out().contains("holders: 2\n") && out().contains("holder: " + one.owner() + " permits: 1 session: ")
                && out().contains("last forced release: -\n"), out());

        assertEquals(1, run("release-permits", "export", "--owner", "node-1:0:p9", "--reason", "wedged"), out());
        assertTrue(err().contains("node-1:0:p9 holds none of its permits") && err().contains("Nothing was changed"), err());
        assertTrue(one.isHeld());
        assertEquals(1, run("release-permits", "exports", "--owner", one.owner(), "--reason", "wedged"), out());
        assertTrue(err().contains("there is no semaphore named \"exports\"") && err().contains("\"export\""), err());

        assertEquals(0, run("release-permits", "export", "--owner", two.owner(), "--reason", "wedged, OPS-2", "--by", "bob"),
                err());
        assertTrue(out().startsWith("released 2 permits of semaphore \"export\" from " + two.owner() + " by bob: wedged, OPS-2"),
                out());
        assertTrue(out().contains("its holder is told at its next renewal"), out());
        Await.await(() -> !two.isHeld(), "the holder is told");
        assertThrows(LockLostException.class, two::close);
        assertTrue(one.isHeld());
        assertEquals(0, run("inspect-permits", "export"), err());
        assertTrue(out().contains("used: 1\n") && out().contains("by bob of " + two.owner() + ": wedged, OPS-2"), out());
        assertEquals(1, run("inspect-permits", "never-used"));
        assertTrue(err().contains("no semaphore named \"never-used\""), err());
        one.close();
        lock.close();
    }

    @Test
    void aWrongPermitsCommandLineIsAUsageErrorNamingTheArgument() {
        assertUsage(run("inspect-permits"), "inspect-permits takes one semaphore name, got 0");
        assertUsage(run("release-permits", "export", "--owner", "x"), "--reason is missing");
        assertUsage(run("release-permits", "export", "--reason", "x"), "--owner is missing");
        assertUsage(run("inspect-permits", "export", "--prefix", "x"), "unknown option \"--prefix\" for inspect-permits");
        assertUsage(run("frobnicate"), "expected list, inspect, release, inspect-permits, release-permits, inspect-rw or release-rw");
    }

    private void assertUsage(int exitCode, String message) {
        assertEquals(2, exitCode, err());
        assertTrue(err().startsWith("mongolock: ") && err().contains(message), err());
        assertTrue(err().contains("Usage: ") && err().contains("release-permits NAME --owner OWNER --reason TEXT"), err());
    }
}
