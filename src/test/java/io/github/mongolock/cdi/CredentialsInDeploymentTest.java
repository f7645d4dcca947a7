package io.github.mongolock.cdi;

import static io.github.mongolock.testing.SecretLeaks.assertNothingOf;
import static io.github.mongolock.testing.SecretLeaks.encoded;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.Locked;
import io.github.mongolock.testing.SecretLeaks;
import jakarta.enterprise.context.ApplicationScoped;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 34 in CDI: a password in {@code mongolock.uri} never reaches the deployment error, the server log, the
 * settings' {@code toString()} or the readiness check's data.
 */
class CredentialsInDeploymentTest {

    @ApplicationScoped
    public static class Job {
        @Locked("job")
        public void run() {
        }
    }

    @BeforeAll
    static void healthImplementation() {
        HealthCheckResponse.setResponseProvider(new PlainHealthResponses());
    }

    static Stream<String> passwords() {
        return SecretLeaks.PASSWORDS.stream();
    }

    /**
     * A deployment error is printed in the server log: it quotes the URI without its credentials and says what to
     * check. Seen failing before the fix: {@code mongolock.uri = "mongodb://***@ss:w/rd@127.0.0.1:1/app"} and, for
     * "50%offRamp7", the driver's {@code Error at index 0 in: "of"} with the raw URI in its cause.
     */
    @ParameterizedTest(name = "unescaped password {0}")
    @MethodSource("passwords")
    void theDeploymentErrorShowsNothingOfThePassword(String password) {
        String uri = "mongodb://admin:" + password + "@127.0.0.1:1/app";
        try (SecretLeaks leaks = SecretLeaks.capturingLogs()) {
            Weld weld = WeldNodes.weld("credentials-" + System.nanoTime(),
                    Map.of("mongolock.uri", uri, "mongolock.store-timeout", "PT0.3S"), Job.class);
            try (WeldContainer started = weld.initialize()) {
                // The driver read another user or host out of it: the application starts, and shows nothing either.
                assertNothingOf(password, "the manager's toString()",
                        started.select(io.github.mongolock.LockManager.class).get().toString());
            } catch (RuntimeException failed) {
                String report = SecretLeaks.chain(failed);
                assertNothingOf(password, "the deployment error", report);
                assertTrue(report.contains("MONGOLOCK-CDI-010: mongolock.uri = \"mongodb://***@127.0.0.1:1/app\""), report);
                assertTrue(report.contains("percent-encode"), "says what to check: " + report);
            }
            assertNothingOf(password, "the log", leaks.logs());
        }
    }

    /** The example of docs/configuration.md, "Credentials in the connection string". */
    @Test
    void theDocumentedMessage() {
        String report = DeploymentErrorTest.deploymentFailure(Map.of("mongolock.uri", "mongodb://user:p@ss:w/rd@db1/app"),
                Job.class);
        assertTrue(report.contains("MONGOLOCK-CDI-010: mongolock.uri = \"mongodb://***@db1/app\" is not a valid MongoDB"
                + " connection string: the driver's detail is left out, since it may quote part of the password or of an"
                + " option that carries one. Check that the user name and password are percent-encoded"), report);
    }

    /** The settings, read from configuration, show the URI redacted; so does every problem found in them. */
    @ParameterizedTest(name = "password {0}")
    @MethodSource("passwords")
    void theSettingsShowNothingOfThePassword(String password) {
        for (String written : List.of(password, encoded(password))) {
            List<String> problems = new ArrayList<>();
            LockManagerSettings settings = LockManagerSettings.read(new ConfigReader(WeldNodes.config(
                    Map.of("mongolock.uri", "mongodb://admin:" + written + "@db1:27017/app?authSource=admin"))), problems);
            assertNothingOf(password, "the settings' toString()", settings.toString());
            assertNothingOf(password, "the problems", String.join("\n", problems));
            assertTrue(settings.toString().contains("mongodb://***@db1:27017/app?authSource=admin"), settings.toString());
        }
    }

    /** A Config implementation that cannot read the key and quotes the value in its message: that is not repeated. */
    @Test
    void aConfigurationErrorQuotingTheUriShowsNothingOfIt() {
        Config readable = WeldNodes.config(Map.of("mongolock.database", "app"));
        String uri = "mongodb://admin:Top/Secret@db1/app?authMechanismProperties=AWS_SESSION_TOKEN:SessionTok3n";
        Config failing = (Config) Proxy.newProxyInstance(Config.class.getClassLoader(), new Class<?>[] {Config.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getOptionalValue") && "mongolock.uri".equals(args[0])) {
                        throw new IllegalArgumentException("SRCFG00039: The config property mongolock.uri with the config"
                                + " value \"" + uri + "\" threw an Exception whilst being converted");
                    }
                    try {
                        return method.invoke(readable, args);
                    } catch (InvocationTargetException thrown) {
                        throw thrown.getCause();
                    }
                });
        try (SecretLeaks leaks = SecretLeaks.capturingLogs()) {
            Weld weld = new Weld("unreadable-uri").disableDiscovery().property("org.jboss.weld.se.shutdownHook", false)
                    .addBeanClasses(Job.class).addExtension(new MongoLockExtension(failing));
            String report = DeploymentErrorTest.failureOf(weld);
            assertTrue(report.contains("MONGOLOCK-CDI-015: Configuration key mongolock.uri could not be read"), report);
            assertNothingOf(List.of("Top/Secret", "SessionTok3n"), "the deployment error", report);
            assertNothingOf(List.of("Top/Secret", "SessionTok3n"), "the log", leaks.logs());
        }
    }

    /** Deployed with a valid URI carrying a password (to a server that is not there): readiness data and logs. */
    @Test
    void theReadinessCheckAndTheLogShowNothingOfThePassword() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        List<String> secrets = List.of("pässwörd€", "SessionTok3n");
        String uri = "mongodb://admin:" + encoded("pässwörd€") + "@127.0.0.1:" + closedPort
                + "/app?authMechanismProperties=AWS_SESSION_TOKEN:SessionTok3n";
        try (SecretLeaks leaks = SecretLeaks.capturingLogs()) {
            try (WeldContainer node = WeldNodes.weld("ready-credentials", Map.of("mongolock.uri", uri,
                            "mongolock.store-timeout", "PT0.3S", "mongolock.wait-time", "PT0.5S"), Job.class)
                    .addExtension(new ReadinessCheckRegistration()).initialize()) {
                HealthCheckResponse response = node.select(HealthCheck.class, Readiness.Literal.INSTANCE).get().call();
                assertEquals(HealthCheckResponse.Status.DOWN, response.getStatus());
                assertNothingOf(secrets, "the readiness data", response.getData().orElseThrow().toString());
                assertNothingOf(secrets, "the manager's toString()",
                        node.select(io.github.mongolock.LockManager.class).get().toString());
                try {
                    node.select(Job.class).get().run();
                } catch (RuntimeException failed) {
                    assertNothingOf(secrets, "a @Locked call's failure", SecretLeaks.chain(failed));
                }
            }
            assertNothingOf(secrets, "the log", leaks.logs());
        }
    }
}
