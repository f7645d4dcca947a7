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
    /** The operator's command against this test's database. */
    private AdminCommandRunner command;

    PermitsAdminCommandTest(TestMongo mongo) {
        this.mongo = mongo;
    }

    @BeforeEach
    void aManager() {
        database = mongo.freshDatabase();
        command = new AdminCommandRunner(mongo.uri(), database);
        node1 = MongoLockManager.builder().client(mongo.client()).database(database).instanceId("node-1")
                .leaseTime(Duration.ofSeconds(1)).build();
    }

    @AfterEach
    void close() {
        node1.close();
    }


    @Test
    void listInspectAndReleaseTheHoldersOfASemaphore() throws InterruptedException {
        assertEquals(0, command.run("list"), command.err());
        assertFalse(command.out().contains("SEMAPHORE"), "no semaphore in use: only the locks' table: " + command.out());

        LockSession lock = node1.acquire("invoice-run");
        PermitHold one = node1.permits("export", 3).acquire();
        PermitHold two = node1.permits("export", 3).acquire(2, LockOptions.defaults());
        assertEquals(0, command.run("list"), command.err());
        String[] lines = command.out().split("\n");
        assertTrue(lines[1].startsWith("invoice-run"), command.out());
        assertEquals("1 lock held or queued for", lines[2], command.out());
        assertTrue(lines[3].startsWith("SEMAPHORE") && lines[3].contains("LIMIT") && lines[3].contains("USED")
                && lines[3].contains("PERMITS") && lines[3].contains("SESSION") && lines[3].contains("OWNER"), command.out());
        assertTrue(lines[4].matches("export\\s+3\\s+3\\s+node-1\\s+1\\s+live\\s+1\\.0s\\s+\\S+\\s+-\\s+" + one.owner()), command.out());
        assertTrue(lines[5].matches("export\\s+3\\s+3\\s+node-1\\s+2\\s+live\\s+1\\.0s\\s+\\S+\\s+-\\s+" + two.owner()), command.out());
        assertEquals("1 semaphore with permits held or queued for", lines[6], command.out());
        assertEquals(0, command.run("list", "--prefix", "inv"), command.err());
        assertFalse(command.out().contains("SEMAPHORE"), "the prefix applies to semaphores too: " + command.out());

        assertEquals(0, command.run("inspect-permits", "export"), command.err());
        assertTrue(command.out().contains("semaphore: export\nlimit: 3\nused: 3\nfree: 0\n"), command.out());
        assertTrue(command.out().contains("holders: 2\n") && command.out().contains("holder: " + one.owner() + " permits: 1 session: ")
                && command.out().contains("last forced release: -\n"), command.out());

        assertEquals(1, command.run("release-permits", "export", "--owner", "node-1:0:p9", "--reason", "wedged"), command.out());
        assertTrue(command.err().contains("node-1:0:p9 holds none of its permits") && command.err().contains("Nothing was changed"), command.err());
        assertTrue(one.isHeld());
        assertEquals(1, command.run("release-permits", "exports", "--owner", one.owner(), "--reason", "wedged"), command.out());
        assertTrue(command.err().contains("there is no semaphore named \"exports\"") && command.err().contains("\"export\""), command.err());

        assertEquals(0, command.run("release-permits", "export", "--owner", two.owner(), "--reason", "wedged, OPS-2", "--by", "bob"),
                command.err());
        assertTrue(command.out().startsWith("released 2 permits of semaphore \"export\" from " + two.owner() + " by bob: wedged, OPS-2"),
                command.out());
        assertTrue(command.out().contains("its holder is told at its next renewal"), command.out());
        Await.await(() -> !two.isHeld(), "the holder is told");
        assertThrows(LockLostException.class, two::close);
        assertTrue(one.isHeld());
        assertEquals(0, command.run("inspect-permits", "export"), command.err());
        assertTrue(command.out().contains("used: 1\n") && command.out().contains("by bob of " + two.owner() + ": wedged, OPS-2"), command.out());
        assertEquals(1, command.run("inspect-permits", "never-used"));
        assertTrue(command.err().contains("no semaphore named \"never-used\""), command.err());
        one.close();
        lock.close();
    }

    @Test
    void aWrongPermitsCommandLineIsAUsageErrorNamingTheArgument() {
        assertUsage(command.run("inspect-permits"), "inspect-permits takes one semaphore name, got 0");
        assertUsage(command.run("release-permits", "export", "--owner", "x"), "--reason is missing");
        assertUsage(command.run("release-permits", "export", "--reason", "x"), "--owner is missing");
        assertUsage(command.run("inspect-permits", "export", "--prefix", "x"), "unknown option \"--prefix\" for inspect-permits");
        assertUsage(command.run("frobnicate"), "expected list, inspect, release, inspect-permits, release-permits, inspect-rw or release-rw");
    }

    private void assertUsage(int exitCode, String message) {
        assertEquals(2, exitCode, command.err());
        assertTrue(command.err().startsWith("mongolock: ") && command.err().contains(message), command.err());
        assertTrue(command.err().contains("Usage: ") && command.err().contains("release-permits NAME --owner OWNER --reason TEXT"), command.err());
    }
}
