package io.github.mongolock.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.ConnectionString;
import io.github.mongolock.testing.SecretLeaks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What of a connection string is shown, and what the driver's refusal of one may say. */
class RedactedUriTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "mongodb://admin:Top/Secret@127.0.0.1:1/app | mongodb://***@127.0.0.1:1/app",
            "mongodb://user:p@ss:w/rd@127.0.0.1:1/app | mongodb://***@127.0.0.1:1/app",
            "mongodb://user:p@ss:w/rd@db1/app | mongodb://***@db1/app",
            "mongodb://db1/app?tls=true&tlsCertificateKeyFilePassword=k&y&w=1 | mongodb://db1/app?tls=true&tlsCertificateKeyFilePassword=***&w=1",
            "mongodb://u:Qu?Xylo&Amp=Zeta#Wolf@db1/app | mongodb://***@db1/app",
            "mongodb+srv://u:pässwörd€@cluster0.example.net/app?retryWrites=true | mongodb+srv://***@cluster0.example.net/app?retryWrites=true",
            "mongodb://u:Top%2FSecret@db1,db2:27018/app?replicaSet=rs0 | mongodb://***@db1,db2:27018/app?replicaSet=rs0",
            "admin:Top/Secret@db1/app | ***@db1/app",
            "mongodb://db1/app?tls=true&tlsCertificateKeyFilePassword=Key&Pass&w=1 | mongodb://db1/app?tls=true&tlsCertificateKeyFilePassword=***&w=1",
            "mongodb://db1/?sslClientCertificateKeyPassword=k;appName=x | mongodb://db1/?sslClientCertificateKeyPassword=***;appName=x",
            "mongodb://db1/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:tok | mongodb://db1/?authMechanism=MONGODB-AWS&authMechanismProperties=***",
            "mongodb://db1/?PASSWORD=x&apiToken=y&clientSecret=z | mongodb://db1/?PASSWORD=***&apiToken=***&clientSecret=***",
            "mongodb://u:p@db1/?appName=me@there | mongodb://***@there"})
    void hidesTheUserInformationToTheLastAtAndSecretOptions(String uri, String shown) {
        RedactedUri redacted = RedactedUri.of(uri);
        assertEquals(shown, redacted.toString());
        assertTrue(redacted.secretsHidden());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {"mongodb://db1:27017,db2/app?replicaSet=rs0&w=majority", "memory:",
            "mongodb://db1/", "mongodb+srv://cluster0.example.net", "http://x"})
    void showsAStringWithoutSecretsAsItIs(String uri) {
        RedactedUri redacted = RedactedUri.of(uri);
        assertEquals(uri, redacted.toString());
        assertFalse(redacted.secretsHidden());
    }

    /** The driver quotes a piece of a badly escaped password: with secrets, none of its words are repeated. */
    @Test
    void theDriversRefusalIsShownOnlyWithoutSecrets() {
        String uri = "mongodb://u:50%offRamp7@db1/app";
        IllegalArgumentException invalid = refusal(uri);
        assertTrue(invalid.getMessage().contains("\"of\""), "the driver quotes the password: " + invalid.getMessage());
        RedactedUri redacted = RedactedUri.of(uri);
        assertFalse(redacted.refusal(invalid).contains(invalid.getMessage()));
        assertFalse(redacted.refusal(invalid).contains("\"of\""), redacted.refusal(invalid));
        assertTrue(redacted.refusal(invalid).contains("percent-encoded"), redacted.refusal(invalid));
        assertTrue(redacted.safeCause(invalid).isEmpty());

        IllegalArgumentException withoutSecrets = refusal("mongodb://db1:notaport/app");
        RedactedUri plain = RedactedUri.of("mongodb://db1:notaport/app");
        assertEquals(withoutSecrets.getMessage(), plain.refusal(withoutSecrets));
        assertSame(withoutSecrets, plain.safeCause(withoutSecrets).orElseThrow());
    }

    @Test
    void redactsEveryConnectionStringQuotedInFreeText() {
        String text = "value \"mongodb://admin:Top/Secret@db1/app?authMechanismProperties=AWS_SESSION_TOKEN:SessionTok3n\""
                + " or 'mongodb+srv://u:p@ss@c.example.net' failed; see https://www.mongodb.com/docs";
        String shown = RedactedUri.within(text);
        assertEquals("value \"mongodb://***@db1/app?authMechanismProperties=***\" or 'mongodb+srv://***@c.example.net'"
                + " failed; see https://www.mongodb.com/docs", shown);
        SecretLeaks.assertNothingOf(java.util.List.of("Top/Secret", "SessionTok3n", "p@ss"), "within", shown);
        assertEquals("no connection string here", RedactedUri.within("no connection string here"));
    }

    @Test
    void aNullUriShowsAsNull() {
        assertEquals("null", RedactedUri.of(null).toString());
        assertEquals(null, RedactedUri.within(null));
    }

    private static IllegalArgumentException refusal(String uri) {
        try {
            new ConnectionString(uri);
        } catch (IllegalArgumentException invalid) {
            return invalid;
        }
        throw new AssertionError(uri + " was accepted");
    }
}
