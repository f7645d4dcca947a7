package io.github.mongolock;

import static io.github.mongolock.testing.SecretLeaks.assertNothingOf;
import static io.github.mongolock.testing.SecretLeaks.chain;
import static io.github.mongolock.testing.SecretLeaks.encoded;
import static io.github.mongolock.testing.SecretLeaks.withCredentials;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.SecretLeaks;
import io.github.mongolock.testing.TestMongo;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 34: a password in the builder's {@code uri(...)}, escaped or not, never reaches a message, a cause, a log
 * line or a {@code toString()}; neither do the secrets of the connection string's options.
 */
@ExtendWith(MongoBackend.class)
class CredentialsNeverShownTest {

    static Stream<String> passwords() {
        return SecretLeaks.PASSWORDS.stream();
    }

    /**
     * The password typed as is: the driver refuses the string (or, for a few, reads another host or user out of it).
     * Seen failing before the fix: {@code MongoDB URI "mongodb://admin:Top/Secret@127.0.0.1:1/app" is not valid},
     * and {@code "mongodb://***@ss:w/rd@127.0.0.1:1/app"} for {@code p@ss:w/rd}.
     */
    @ParameterizedTest(name = "unescaped password {0}")
    @MethodSource("passwords")
    void anUnescapedPasswordIsNeverShown(String password) {
        String uri = "mongodb://admin:" + password + "@127.0.0.1:1/app";
        try (SecretLeaks leaks = SecretLeaks.capturingLogs()) {
            for (boolean validateOnly : new boolean[] {true, false}) {
                MongoLockManager.Builder builder = MongoLockManager.builder().uri(uri).database("app")
                        .storeTimeout(Duration.ofMillis(300));
                assertNothingOf(password, "the builder's toString()", builder.toString());
                try {
                    if (validateOnly) {
                        builder.validate();
                    } else {
                        try (MongoLockManager manager = builder.build()) {
                            // Read as a valid string (another user, another host): the failure is the driver's.
                            assertNothingOf(password, "the manager's toString()", manager.toString());
                            assertNothingOf(password, "acquire's failure", chain(assertThrows(LockException.class,
                                    () -> manager.acquire("job"))));
                        }
                    }
                } catch (LockConfigurationException refused) {
                    assertNothingOf(password, "the refusal", chain(refused));
                    assertTrue(refused.getMessage().contains("mongodb://***@127.0.0.1:1/app"), refused.getMessage());
                    assertTrue(refused.getMessage().contains("percent-encode"), "says what to check: " + refused.getMessage());
                }
            }
            assertNothingOf(password, "the log", leaks.logs());
        }
    }

    /** Percent-encoded, the URI is valid: connecting, failing to authenticate, logging and closing show nothing of it. */
    @ParameterizedTest(name = "escaped password {0}")
    @MethodSource("passwords")
    void anEscapedPasswordIsNeverShown(String password, TestMongo mongo) {
        String uri = withCredentials(mongo.uri(), "admin", encoded(password));
        try (SecretLeaks leaks = SecretLeaks.capturingLogs()) {
            try (MongoLockManager manager = MongoLockManager.builder().uri(uri).database("app")
                    .storeTimeout(Duration.ofSeconds(2)).waitTime(Duration.ZERO).build()) {
                assertNothingOf(password, "the manager's toString()", manager.toString());
                try {
                    manager.tryAcquire("job").ifPresent(LockSession::close); // a server that asks for no password
                } catch (LockException failed) {
                    assertNothingOf(password, "the failure", chain(failed));
                }
            }
            assertNothingOf(password, "the log", leaks.logs());
        }
    }

    /**
     * The secrets a connection string's options carry (a TLS key's password, an AWS session token, an option named
     * password) are not shown when the string is refused for another reason (here its port).
     */
    @Test
    void theSecretsOfOptionsAreNeverShown() {
        List<String> secrets = List.of("Kiwi/Plum42", "SessionTok3n", "Hunter2Pw");
        for (String options : List.of("tlsCertificateKeyFilePassword=Kiwi/Plum42&tls=true",
                "sslClientCertificateKeyPassword=Kiwi/Plum42&ssl=true",
                "authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:SessionTok3n",
                "password=Hunter2Pw", "appName=x&tlsCertificateKeyFilePassword=Kiwi/Plum42&Hunter2Pw&w=1")) {
            String uri = "mongodb://127.0.0.1:notaport/app?" + options;
            LockConfigurationException refused = assertThrows(LockConfigurationException.class,
                    () -> MongoLockManager.builder().uri(uri).database("app").validate());
            assertNothingOf(secrets, "the refusal of " + options, chain(refused));
            assertTrue(refused.getMessage().contains("mongodb://127.0.0.1:notaport/app?"), refused.getMessage());
            assertNull(refused.getCause(), "no cause whose message may quote the secret: " + chain(refused));
        }
    }

    /** The example of docs/configuration.md, "Credentials in the connection string", word for word. */
    @Test
    void theDocumentedMessage() {
        String expected = "MongoDB URI \"mongodb://***@db1/app\" is not valid: the driver's detail is left out, since it"
                + " may quote part of the password or of an option that carries one. Check that the user name and password"
                + " are percent-encoded ('/' as %2F, '@' as %40, ':' as %3A, '%' as %25, '?' as %3F, '#' as %23), that the"
                + " port is a number and that the options are known; the same URI without its credentials shows the"
                + " driver's detail. Expected mongodb://host[:port][/database][?options] or mongodb+srv://...";
        MongoLockManager.Builder builder = MongoLockManager.builder().uri("mongodb://user:p@ss:w/rd@db1/app");
        assertEquals(expected, assertThrows(LockConfigurationException.class, builder::validate).getMessage());
        assertEquals(expected, assertThrows(LockConfigurationException.class, builder::build).getMessage());
    }

    /** Without secrets there is nothing to hide: the URI and the driver's own detail are shown. */
    @Test
    void aUriWithoutSecretsIsShownWithTheDriversDetail() {
        LockConfigurationException refused = assertThrows(LockConfigurationException.class,
                () -> MongoLockManager.builder().uri("mongodb://db1:notaport/app?appName=billing").validate());
        assertTrue(refused.getMessage().contains("\"mongodb://db1:notaport/app?appName=billing\"")
                && refused.getMessage().contains("port"), refused.getMessage());
        assertTrue(refused.getCause() instanceof IllegalArgumentException, "the driver's exception is the cause");
    }

    /** A valid URI with a password, to a server that is not there: the store's failures show nothing of it. */
    @Test
    void storeFailuresShowNothingOfTheUri() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        String password = "Top/Secret";
        String uri = "mongodb://admin:" + encoded(password) + "@127.0.0.1:" + closedPort
                + "/app?tlsCertificateKeyFilePassword=" + encoded("Kiwi/Plum42");
        try (SecretLeaks leaks = SecretLeaks.capturingLogs()) {
            try (MongoLockManager manager = MongoLockManager.builder().uri(uri).storeTimeout(Duration.ofMillis(300))
                    .waitTime(Duration.ZERO).build()) {
                LockException failed = assertThrows(LockException.class, () -> manager.acquire("job"));
                assertNothingOf(List.of(password, "Kiwi/Plum42"), "the failure", chain(failed));
                assertNothingOf(List.of(password, "Kiwi/Plum42"), "the manager's toString()", manager.toString());
            }
            assertNothingOf(List.of(password, "Kiwi/Plum42"), "the log", leaks.logs());
        }
    }
}
