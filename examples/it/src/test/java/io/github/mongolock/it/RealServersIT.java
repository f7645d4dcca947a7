package io.github.mongolock.it;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The example application in Open Liberty and in Payara Micro at the same time, against one
 * MongoDB, observed through HTTP only ({@link TwoServerChecks}), and a Liberty that must refuse a
 * bad configuration. Everything binds to 127.0.0.1 and stops by itself.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealServersIT {

    private static final Path WORK = Path.of(System.getProperty("it.work.dir", "target/it-work"));
    private static final Path SERVERS = Path.of(System.getProperty("it.servers.dir", "target/servers"));
    private static final Path WLP = Path.of(System.getProperty("it.liberty.home", "target/liberty/wlp"));
    private static final String DATABASE = "mongolock_it";
    private static final int CLIENT_THREADS_PER_SERVER = 8;
    private static final int REQUESTS_PER_THREAD = 15;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

    private static TestDatabase mongo;
    private static LoopbackProxy proxy;
    private static LibertyServer liberty;
    private static PayaraMicroServer payara;
    private static TwoServerChecks checks;

    @BeforeAll
    static void startServers() throws Exception {
        mongo = TestDatabase.start();
        proxy = LoopbackProxy.to(mongo.host(), mongo.port());
        liberty = new LibertyServer("liberty-it", WLP, Path.of(System.getProperty("it.liberty.server.xml")),
                SERVERS.resolve("mongolock-liberty-example.war"));
        payara = new PayaraMicroServer("payara-it", SERVERS.resolve(System.getProperty("it.payara.micro.jar", "payara-micro.jar")),
                SERVERS.resolve("mongolock-payara-example.war"), Path.of(System.getProperty("it.payara.config.dir")),
                WORK.resolve("payara-it"));
        // example.server-name comes from each WAR's properties file; the instance id is the process's name.
        checks = new TwoServerChecks("[real servers]", proxy,
                new TwoServerChecks.Server(liberty, "liberty", liberty.name, liberty.baseUrl() + "/health/ready"),
                new TwoServerChecks.Server(payara, "payara", payara.name, payara.baseUrl() + "/health/ready"));
        liberty.start(environment(liberty.name));
        payara.start(environment(payara.name));
        checks.awaitBothAnswer(START_TIMEOUT);
    }

    /** MONGOLOCK_* variables override the application's microprofile-config.properties. */
    private static Map<String, String> environment(String instanceId) {
        return Map.of(
                "MONGOLOCK_URI", "mongodb://127.0.0.1:" + proxy.port() + "/?directConnection=true",
                "MONGOLOCK_DATABASE", DATABASE,
                "MONGOLOCK_INSTANCE_ID", instanceId);
    }

    @AfterAll
    static void stopServers() throws Exception {
        for (AutoCloseable resource : new AutoCloseable[] {liberty, payara, proxy, mongo}) {
            if (resource != null) {
                resource.close();
            }
        }
        if (checks != null) {
            checks.printFigures();
        }
    }

    @Test
    @Order(0)
    void theLibraryDeploysInterceptsAndReadsItsConfiguration() throws Exception {
        checks.libraryDeploysInterceptsAndReadsItsConfiguration();
    }

    @Test
    @Order(1)
    void bothServersTogetherNeverOverlapInTheCriticalSection() throws Exception {
        checks.bothServersTogetherNeverOverlapInTheCriticalSection(CLIENT_THREADS_PER_SERVER, REQUESTS_PER_THREAD);
    }

    @Test
    @Order(2)
    void theScheduledJobRunsOncePerTickAcrossBothServers() throws Exception {
        checks.ejbScheduleRunsOncePerTickAcrossBothServers();
    }

    @Test
    @Order(3)
    void theJakartaEe11ScheduleRunsOncePerTickAndGoesOnAfterSkippedTicks() throws Exception {
        checks.jakartaEe11ScheduleRunsOncePerTickAndGoesOnAfterSkippedTicks();
    }

    @Test
    @Order(4)
    void aBadDurationInTheConfigurationFileStopsTheDeploymentWithOurMessage() throws Exception {
        Path badWar = WORK.resolve("mongolock-liberty-example-bad-lease.war");
        Files.createDirectories(WORK);
        rewriteConfig(SERVERS.resolve("mongolock-liberty-example.war"), badWar,
                "mongolock.lease-time=PT20S", "mongolock.lease-time=banana");
        long start = System.nanoTime();
        try (LibertyServer bad = new LibertyServer("liberty-bad-config", WLP,
                Path.of(System.getProperty("it.liberty.server.xml")), badWar)) {
            bad.start(environment("liberty-bad-config"));
            String log = "";
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            // CWWKZ0002E: an application failed to start; CWWKZ0001I: it started (which must not happen).
            while (System.nanoTime() < deadline && !log.contains("CWWKZ0002E") && !log.contains("CWWKZ0001I")) {
                Thread.sleep(500);
                log = bad.logText();
            }
            checks.figure("bad configuration: Liberty refused the application after",
                    String.format("%.1f s", (System.nanoTime() - start) / 1e9));
            assertTrue(log.contains("CWWKZ0002E"), "the deployment failed:\n" + bad.logTail(40));
            assertTrue(!log.contains("CWWKZ0001I"), "the application must not start:\n" + bad.logTail(40));
            assertTrue(log.contains("mongolock.lease-time") && log.contains("banana"),
                    "our message names the key and the value:\n" + bad.logTail(40));
            assertNotEquals(200, JsonHttp.statusOrZero(bad.baseUrl() + "/api/info"), "nothing is served");
            String ours = log.lines().filter(line -> line.contains("banana")).findFirst().orElse("");
            System.out.println("[real servers] bad configuration, as Liberty logged it: " + ours.strip());
        }
    }

    /** A copy of {@code war} whose microprofile-config.properties has {@code from} replaced by {@code to}. */
    private static void rewriteConfig(Path war, Path copy, String from, String to) throws IOException {
        String config = "WEB-INF/classes/META-INF/microprofile-config.properties";
        try (ZipFile source = new ZipFile(war.toFile());
             ZipOutputStream target = new ZipOutputStream(Files.newOutputStream(copy))) {
            for (ZipEntry entry : java.util.Collections.list(source.entries())) {
                target.putNextEntry(new ZipEntry(entry.getName()));
                byte[] content = source.getInputStream(entry).readAllBytes();
                if (entry.getName().equals(config)) {
                    String text = new String(content, StandardCharsets.UTF_8);
                    assertTrue(text.contains(from), config + " has " + from);
                    content = text.replace(from, to).getBytes(StandardCharsets.UTF_8);
                }
                target.write(content);
                target.closeEntry();
            }
        }
    }

    @Test
    @Order(5)
    void oneServerIsLeaderAndAStepDownHandsTheLeadershipToTheOther() throws Exception {
        checks.oneServerIsLeaderAndAStepDownHandsTheLeadershipToTheOther();
    }

    @Test
    @Order(6)
    void readinessIsDownWhileMongoDbIsUnreachableAndUpWhenItIsBack() throws Exception {
        checks.readinessIsDownWhileMongoDbIsUnreachableAndUpWhenItIsBack();
    }
}
