package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockException;
import io.github.mongolock.MongoLockManager;
import io.github.mongolock.admin.LockAdminCommand;
import io.github.mongolock.mongo.ConnectionStringText;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 34: a password mistyped into a connection string (an unescaped {@code /}, {@code @}, {@code :} or
 * {@code %}, or non-ASCII) never reaches anything a user sees: no exception message, no cause, no suppressed
 * exception, no log line, no {@code toString()}, and not the command line's output. Each password is fed to every
 * path; every fragment of it of three characters or more (between those separators) is looked for everywhere.
 */
class CredentialsNeverShownTest {

    private final List<String> logged = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            StringWriter text = new StringWriter();
            text.append(record.getMessage()).append(' ').append(Arrays.toString(record.getParameters()));
            if (record.getThrown() != null) {
                record.getThrown().printStackTrace(new PrintWriter(text));
            }
            synchronized (logged) {
                logged.add(text.toString());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureLogs() {
        Logger.getLogger("").addHandler(capture);
    }

    @AfterEach
    void stopCapturing() {
        Logger.getLogger("").removeHandler(capture);
    }

    private static String uriWith(String password) {
        return "mongodb://admin:" + password + "@127.0.0.1:1/app";
    }

    /** The password's fragments a reader could recognise: the runs between separators, three characters or more. */
    private static List<String> fragments(String password) {
        return Arrays.stream(password.split("[/@:%]")).filter(part -> part.length() >= 3).toList();
    }

    private void assertShowsNoneOf(String password, String where, String text) {
        for (String fragment : fragments(password)) {
            assertFalse(text.contains(fragment), where + " shows \"" + fragment + "\" of the password:\n" + text);
        }
    }

    private void assertLogsShowNoneOf(String password) {
        synchronized (logged) {
            for (String line : logged) {
                assertShowsNoneOf(password, "a log line", line);
            }
        }
    }

    private static String wholeChain(Throwable failure) {
        StringWriter text = new StringWriter();
        failure.printStackTrace(new PrintWriter(text)); // messages of the causes and suppressed ones too
        return text.toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"T0p/Sekr3t", "p@Zw0rd:Qx7/Kk9", "fifty%ofZ", "Gq1:Wv2@Yt3", "pässwörd€"})
    void theBuildersMessagesAndLogsShowNoPassword(String password) {
        String uri = uriWith(password);
        try (MongoLockManager manager = MongoLockManager.builder().uri(uri).storeTimeout(Duration.ofMillis(300)).build()) {
            // A string that parses: the first call fails (nothing listens on port 1), and says so without it.
            LockException failed = assertThrows(LockException.class, () -> manager.tryAcquire("job"));
            assertShowsNoneOf(password, "the failed call", wholeChain(failed));
            assertShowsNoneOf(password, "the manager's toString()", manager.toString());
        } catch (LockConfigurationException invalid) {
            assertTrue(invalid.getMessage().contains("mongodb://***@127.0.0.1:1/app"), invalid.getMessage());
            assertShowsNoneOf(password, "the builder's exception", wholeChain(invalid));
        }
        assertLogsShowNoneOf(password);
    }

    @ParameterizedTest
    @ValueSource(strings = {"T0p/Sekr3t", "p@Zw0rd:Qx7/Kk9", "fifty%ofZ", "Gq1:Wv2@Yt3"})
    void aCdiDeploymentErrorShowsNoPassword(String password) {
        String report = DeploymentErrorTest.deploymentFailure(Map.of("mongolock.uri", uriWith(password)), DeploymentErrorTest.Fine.class);
        assertTrue(report.contains("MONGOLOCK-CDI-010: mongolock.uri = \"mongodb://***@127.0.0.1:1/app\""), report);
        assertShowsNoneOf(password, "the deployment error", report);
        assertLogsShowNoneOf(password);
    }

    @ParameterizedTest
    @ValueSource(strings = {"T0p/Sekr3t", "p@Zw0rd:Qx7/Kk9", "fifty%ofZ", "pässwörd€"})
    void theSettingsToStringShowsNoPassword(String password) {
        LockManagerSettings settings = new LockManagerSettings(Optional.of(uriWith(password)), Optional.empty(), "locks",
                Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(10), Optional.empty(), 1000, true, true,
                Duration.ofDays(1), Duration.ofHours(1));
        assertShowsNoneOf(password, "the settings' toString()", settings.toString());
        assertTrue(settings.toString().contains("mongodb://***@127.0.0.1:1/app"), settings.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"T0p/Sekr3t", "p@Zw0rd:Qx7/Kk9", "fifty%ofZ", "Gq1:Wv2@Yt3"})
    void theCommandLineShowsNoPassword(String password) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = LockAdminCommand.run(new String[] {"list", "--uri", uriWith(password), "--database", "app"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, exit, "a connection string that does not parse is a usage error");
        assertShowsNoneOf(password, "the command line's output", out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
        assertLogsShowNoneOf(password);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "mongodb://admin:T0p/Sekr3t@h1,h2/app?replicaSet=rs0 -> mongodb://***@h1,h2/app?replicaSet=rs0",
            "mongodb+srv://u:p@Zw0rd:Qx7@cluster.example.net/ -> mongodb+srv://***@cluster.example.net/",
            "mongodb://h1/app?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:Kq9Zz -> mongodb://h1/app?authMechanism=MONGODB-AWS&authMechanismProperties=***",
            "mongodb://h1/?tls=true&tlsCertificateKeyFilePassword=Kq9Zz&appName=x -> mongodb://h1/?tls=true&tlsCertificateKeyFilePassword=***&appName=x",
            "mongodb://h1:27017/app -> mongodb://h1:27017/app"})
    void theRedactionHidesFromTheSchemeToTheLastAtAndSecretOptions(String example) {
        String[] given = example.split(" -> ");
        assertEquals(given[1], ConnectionStringText.redacted(given[0]));
        assertEquals(!given[0].equals(given[1]), ConnectionStringText.carriesSecrets(given[0]));
    }
}
