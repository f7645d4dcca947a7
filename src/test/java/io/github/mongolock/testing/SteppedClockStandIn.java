package io.github.mongolock.testing;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.InterruptedIOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The MongoDB stand-in (mongo-java-server, memory backend) in a JVM of its own whose wall clock the test
 * steps. In that JVM mongo-java-server's classes are loaded by a {@link WallClockRedirectingClassLoader},
 * which points each of their reads of the wall clock ({@code $currentDate}, {@code $$NOW} in filters and
 * aggregations, the backend's clock) at {@link SteppedWallClock}: the real time plus an offset this handle
 * sends over the child's standard input. Nothing outside the build is needed (ASM comes from Maven Central).
 * The JDK, Netty, the monotonic clock and every timed wait in that JVM stay real.
 *
 * <p>{@link #setOffset} returns once the child has applied the offset, so the next request already sees it.
 * Binds 127.0.0.1 only; the child exits when this handle is closed, when the test JVM dies (its standard
 * input closes), or after {@link #MAX_LIFETIME} whatever happens. Its standard error (and anything else it
 * prints, including the list of redirected reads) goes to {@code stand-in.log} in the work directory.
 *
 * <p>Thread-safe: offsets may be set from any thread, one at a time.
 */
public final class SteppedClockStandIn implements AutoCloseable {

    /**
     * Bounds the time from calling {@link #setOffset} until the stand-in's clock follows, for callers that
     * time a step from before the call. setOffset itself returns only once the child has applied the offset
     * (a line written to its standard input and echoed back). Measured on 2 cores at load averages of 8 to
     * 15: 0.4 to 1.1 ms median, at most 14 ms in {@code SteppedClockStandInTest} (which fails where a step
     * exceeds this bound) and 16 ms in the torture's clock scenario (there each time a fresh stand-in's
     * first step).
     */
    public static final Duration FOLLOWS_WITHIN = Duration.ofMillis(100);
    static final Duration MAX_LIFETIME = Duration.ofMinutes(15);
    /** A JVM start plus reading and rewriting mongo-java-server's classes, on a loaded machine. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    /** Far above {@link #FOLLOWS_WITHIN}: only a child that hangs or died gets here. */
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);
    private static final String END_OF_ANSWERS = "end of the child's standard output";
    private static final String PACKAGE_PREFIX = "de.bwaldvogel.";
    private static final Pattern OFFSET = Pattern.compile("([+-])(\\d+(?:\\.\\d{1,9})?)s");

    private final Process process;
    private final Writer commands;
    private final BlockingQueue<String> answers;
    private final Path log;
    private final String uri;
    private final int redirectedReads;
    private long sent;

    private SteppedClockStandIn(Process process, Writer commands, BlockingQueue<String> answers, Path log, String uri,
                                int redirectedReads) {
        this.process = process;
        this.commands = commands;
        this.answers = answers;
        this.log = log;
        this.uri = uri;
        this.redirectedReads = redirectedReads;
    }

    /** Starts the child JVM and waits until it serves; its log goes to {@code workDir/stand-in.log}. */
    public static SteppedClockStandIn start(Path workDir) throws IOException {
        Files.createDirectories(workDir);
        Path log = workDir.resolve("stand-in.log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx192m");
        // As the torture workers: a JVM that lives for seconds to minutes on a shared 2-core machine
        // spends less on compiling and collecting this way.
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        // Surefire runs tests from a manifest-only jar; the child needs (and its loader scans) the real entries.
        String classPath = System.getProperty("surefire.test.class.path");
        command.add(classPath != null && !classPath.isBlank() ? classPath : System.getProperty("java.class.path"));
        command.add(SteppedClockStandIn.class.getName());
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        BlockingQueue<String> answers = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    answers.add(line);
                }
            } catch (IOException closed) {
                // the child is gone: the marker below tells a waiting caller
            } finally {
                answers.add(END_OF_ANSWERS);
            }
        }, "stepped-clock-stand-in-answers");
        reader.setDaemon(true);
        reader.start();
        String first = poll(answers, START_TIMEOUT);
        String[] handshake = first == null ? new String[0] : first.split(" ");
        if (handshake.length != 3 || !handshake[0].equals("port")) {
            process.destroyForcibly();
            throw new IllegalStateException("the stepped-clock stand-in did not start within " + START_TIMEOUT.toSeconds()
                    + " s (its first answer: " + first + "); see " + log);
        }
        Writer commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        return new SteppedClockStandIn(process, commands, answers, log, "mongodb://127.0.0.1:" + handshake[1], Integer.parseInt(handshake[2]));
    }

    public String uri() {
        return uri;
    }

    /** For the test log: what runs, how its clock is stepped, where. */
    public String describe() {
        return "stand-in de.bwaldvogel:mongo-java-server (memory backend) in a JVM of its own at " + uri
                + ", its wall clock stepped by the test (" + redirectedReads + " wall-clock reads in its classes redirected"
                + " to an offset clock by " + WallClockRedirectingClassLoader.class.getSimpleName() + "; log " + log + ")";
    }

    /**
     * Sets the stand-in's wall clock to {@code offset} from real time, to the nanosecond, and returns once
     * the stand-in has applied it: a request sent after this returns sees the new offset (measured: see
     * {@link #FOLLOWS_WITHIN}).
     *
     * @throws IOException where the child does not confirm within 10 s (it hangs or died; see its log), or
     *                     {@link InterruptedIOException} where the caller is interrupted meanwhile
     */
    public synchronized void setOffset(Duration offset) throws IOException {
        long number = ++sent;
        String command = "offset " + number + " " + offset.toNanos();
        commands.write(command + "\n");
        commands.flush();
        long deadline = System.nanoTime() + ANSWER_TIMEOUT.toNanos();
        String answer;
        // Skips the confirmation of an earlier offset whose caller stopped waiting (interrupted).
        do {
            answer = poll(answers, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        } while (answer != null && answer.startsWith("offset ") && !answer.equals(command) && System.nanoTime() - deadline < 0);
        if (!command.equals(answer)) {
            if (END_OF_ANSWERS.equals(answer)) {
                answers.add(END_OF_ANSWERS); // for the next caller, who would otherwise wait for nothing
            }
            throw new IOException("the stepped-clock stand-in did not confirm offset " + offset + " within "
                    + ANSWER_TIMEOUT.toSeconds() + " s (answer: " + answer + "); see " + log);
        }
    }

    /**
     * Moves the stand-in's wall clock to {@code offset} from real time, written as {@code "+6s"},
     * {@code "-60s"}, {@code "+0s"} or {@code "+4.5s"}; returns once the clock follows.
     */
    public void stepClock(String offset) throws IOException {
        setOffset(parseOffset(offset));
    }

    static Duration parseOffset(String text) {
        Matcher matcher = OFFSET.matcher(text);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("clock offset \"" + text + "\" is not of the form +6s, -60s or +4.5s");
        }
        long nanos = new BigDecimal(matcher.group(2)).movePointRight(9).longValueExact();
        return Duration.ofNanos(matcher.group(1).equals("-") ? -nanos : nanos);
    }

    private static String poll(BlockingQueue<String> answers, Duration timeout) throws InterruptedIOException {
        try {
            return answers.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the stepped-clock stand-in's answer");
        }
    }

    /** Closes the child's standard input, on which it shuts down; forcibly after 5 s. */
    @Override
    public void close() {
        try {
            commands.close();
        } catch (IOException alreadyGone) {
            // the child has exited: nothing to tell it
        }
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException interrupted) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The child: starts mongo-java-server from a {@link WallClockRedirectingClassLoader}, answers
     * {@code port <port> <reads redirected>}, then applies each {@code offset <number> <nanoseconds>} line
     * and echoes it, until its standard input closes (the test closed it, or its JVM ended) or its
     * lifetime is over.
     */
    public static void main(String[] args) throws Exception {
        PrintStream toParent = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        // Standard output carries the answers alone; whatever else this JVM prints goes to the log.
        System.setOut(System.err);
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(MAX_LIFETIME.toMillis());
            } catch (InterruptedException ignored) {
                // exit anyway
            }
            Runtime.getRuntime().halt(3);
        }, "stand-in-lifetime");
        watchdog.setDaemon(true);
        watchdog.start();
        List<Path> classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.isEmpty()).map(Path::of).toList();
        WallClockRedirectingClassLoader loader = WallClockRedirectingClassLoader.of(
                SteppedClockStandIn.class.getClassLoader(), PACKAGE_PREFIX, classPath);
        loader.redirected().forEach(read -> System.err.println("stepped wall clock: redirected " + read));
        // Through reflection: naming MongoServer here would load it (and everything it touches) from the
        // class path, on the real clock, not from the rewriting loader.
        Class<?> serverClass = loader.loadClass("de.bwaldvogel.mongo.MongoServer");
        Object backend = loader.loadClass("de.bwaldvogel.mongo.backend.memory.MemoryBackend").getConstructor().newInstance();
        Object server = serverClass.getConstructor(loader.loadClass("de.bwaldvogel.mongo.MongoBackend")).newInstance(backend);
        serverClass.getMethod("enableOplog").invoke(server);
        serverClass.getMethod("bind", String.class, int.class).invoke(server, "127.0.0.1", 0);
        InetSocketAddress address = (InetSocketAddress) serverClass.getMethod("getLocalAddress").invoke(server);
        toParent.println("port " + address.getPort() + " " + loader.redirected().size());
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = commands.readLine(); line != null; line = commands.readLine()) {
            String[] parts = line.split(" ");
            if (parts.length == 3 && parts[0].equals("offset")) {
                SteppedWallClock.setOffset(Duration.ofNanos(Long.parseLong(parts[2])));
                toParent.println(line);
            } else {
                toParent.println("unknown command: " + line);
            }
        }
        serverClass.getMethod("shutdownNow").invoke(server);
        System.exit(0);
    }
}
