package io.github.mongolock.it;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The example application (the WAR of examples/liberty, unchanged) in two WildFly servers at the same time, against
 * one MongoDB, observed through HTTP only ({@link TwoServerChecks}): one holder at a time across the two, the EJB
 * {@code @Schedule} job and the Jakarta EE 11 {@code @Asynchronous(runAt)} schedule once per tick across the two, the
 * leadership handed over, and the readiness check following MongoDB. Two servers of one kind make the clearest proof
 * that the locks, not a server's own singleton or timer service, keep the work on one server. Everything binds to
 * 127.0.0.1 and stops by itself.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WildFlyIT {

    private static final Path WORK = Path.of(System.getProperty("it.work.dir", "target/it-work"));
    private static final Path SERVERS = Path.of(System.getProperty("it.servers.dir", "target/servers"));
    private static final Path HOME = Path.of(System.getProperty("it.wildfly.home", "target/wildfly"));
    private static final String DATABASE = "mongolock_wildfly_it";
    private static final int CLIENT_THREADS_PER_SERVER = 8;
    private static final int REQUESTS_PER_THREAD = 10;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

    private static TestDatabase mongo;
    private static LoopbackProxy proxy;
    private static WildFlyServer first;
    private static WildFlyServer second;
    private static TwoServerChecks checks;

    @BeforeAll
    static void startServers() throws Exception {
        mongo = TestDatabase.start();
        proxy = LoopbackProxy.to(mongo.host(), mongo.port());
        Path war = SERVERS.resolve("mongolock-liberty-example.war");
        first = new WildFlyServer("wildfly-a", HOME, war, WORK.resolve("wildfly-a"));
        second = new WildFlyServer("wildfly-b", HOME, war, WORK.resolve("wildfly-b"));
        checks = new TwoServerChecks("[wildfly]", proxy, checked(first), checked(second));
        first.start(environment(first.name));
        second.start(environment(second.name));
        checks.awaitBothAnswer(START_TIMEOUT);
    }

    /**
     * The server name is the process's name, the instance id that name with "-it"; WildFly serves MicroProfile
     * Health on its management interface, beside its own checks (deployments, boot).
     */
    private static TwoServerChecks.Server checked(WildFlyServer server) {
        return new TwoServerChecks.Server(server, server.name, server.name + "-it", server.managementUrl() + "/health/ready");
    }

    /**
     * MONGOLOCK_* variables override the application's microprofile-config.properties, and so does
     * EXAMPLE_SERVER_NAME (example.server-name): the two servers run the same WAR and tell themselves apart by it.
     */
    private static Map<String, String> environment(String name) {
        return Map.of(
                "MONGOLOCK_URI", "mongodb://127.0.0.1:" + proxy.port() + "/?directConnection=true",
                "MONGOLOCK_DATABASE", DATABASE,
                "MONGOLOCK_INSTANCE_ID", name + "-it",
                "EXAMPLE_SERVER_NAME", name);
    }

    @AfterAll
    static void stopServers() throws Exception {
        for (AutoCloseable resource : new AutoCloseable[] {first, second, proxy, mongo}) {
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
    void theJakartaEe11ScheduleRunsOncePerTickAndGoesOnAfterSkippedTicks() throws Exception {
        checks.jakartaEe11ScheduleRunsOncePerTickAndGoesOnAfterSkippedTicks();
    }

    @Test
    @Order(3)
    void theScheduledJobRunsOncePerTickAcrossBothServers() throws Exception {
        checks.ejbScheduleRunsOncePerTickAcrossBothServers();
    }

    @Test
    @Order(4)
    void oneServerIsLeaderAndAStepDownHandsTheLeadershipToTheOther() throws Exception {
        checks.oneServerIsLeaderAndAStepDownHandsTheLeadershipToTheOther();
    }

    @Test
    @Order(5)
    void readinessIsDownWhileMongoDbIsUnreachableAndUpWhenItIsBack() throws Exception {
        checks.readinessIsDownWhileMongoDbIsUnreachableAndUpWhenItIsBack();
    }
}
