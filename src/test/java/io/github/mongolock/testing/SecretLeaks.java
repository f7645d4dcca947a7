package io.github.mongolock.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Secrets a connection string carries (passwords typed without percent-encoding, an AWS session token, a TLS key
 * password) and the check that no fragment of one reaches anything a user sees: messages, whole cause chains with
 * suppressed exceptions, log records (System.Logger's default backend, java.util.logging, captured at every level
 * while an instance is open), {@code toString()}s. Not thread-safe to open twice at once; close it.
 */
public final class SecretLeaks implements AutoCloseable {

    /**
     * Passwords with the characters people forget to percent-encode ('/', '@', ':', '%') and non-ASCII ones. Their
     * segments between separators are distinctive words, so that one found in a message can only have come from
     * the password ("50%off" of the issue is "50%offRamp7" here: "off" alone is an ordinary word of our messages).
     */
    public static final List<String> PASSWORDS = List.of("Top/Secret", "p@ss:w/rd", "50%offRamp7", "pässwörd€",
            "Qu?Xylo&Amp=Zeta#Wolf", "Adm1n@Corp:Vault/77");

    /** Characters that cut a password into the segments checked one by one. */
    private static final String SEPARATORS = "[/@:%?&=#;, ]";

    private final List<String> records = Collections.synchronizedList(new ArrayList<>());
    private final Handler handler = new Handler() {
        private final SimpleFormatter formatter = new SimpleFormatter();

        @Override
        public void publish(LogRecord record) {
            String text = record.getLoggerName() + " " + record.getLevel() + ": " + formatter.formatMessage(record);
            records.add(record.getThrown() == null ? text : text + "\n" + chain(record.getThrown()));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger root = Logger.getLogger("");
    private final Level rootLevel;

    private SecretLeaks() {
        rootLevel = root.getLevel();
        root.setLevel(Level.ALL); // DEBUG and TRACE records too; the console handler keeps its own INFO threshold
        root.addHandler(handler);
    }

    /** Captures every log record from now until {@link #close()}. */
    public static SecretLeaks capturingLogs() {
        return new SecretLeaks();
    }

    /** Everything logged since this instance opened, one record (with its stack traces) after another. */
    public String logs() {
        synchronized (records) {
            return String.join("\n", records);
        }
    }

    @Override
    public void close() {
        root.removeHandler(handler);
        root.setLevel(rootLevel);
    }

    /** {@code throwable} as {@code printStackTrace} shows it: every message, cause and suppressed exception. */
    public static String chain(Throwable throwable) {
        StringWriter text = new StringWriter();
        throwable.printStackTrace(new PrintWriter(text));
        return text.toString();
    }

    /** {@code uri} ({@code scheme://hosts...}) with {@code user:password@} put in front of its hosts, as written. */
    public static String withCredentials(String uri, String user, String password) {
        int hosts = uri.indexOf("://") + 3;
        return uri.substring(0, hosts) + user + ":" + password + "@" + uri.substring(hosts);
    }

    /** {@code secret} percent-encoded as a connection string needs it (a space as %20, not '+'). */
    public static String encoded(String secret) {
        return URLEncoder.encode(secret, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /**
     * What must not be seen of {@code secret}: itself, its percent-encoded form, and each of their segments between
     * separators that is at least 3 characters long.
     */
    public static Set<String> fragments(String secret) {
        Set<String> fragments = new LinkedHashSet<>();
        for (String form : List.of(secret, encoded(secret))) {
            fragments.add(form);
            for (String segment : form.split(SEPARATORS)) {
                if (segment.length() >= 3) {
                    fragments.add(segment);
                }
            }
        }
        return fragments;
    }

    /** Fails naming {@code where} and the fragment when {@code shown} contains a fragment of one of {@code secrets}. */
    public static void assertNothingOf(List<String> secrets, String where, String shown) {
        for (String secret : secrets) {
            for (String fragment : fragments(secret)) {
                if (shown.contains(fragment)) {
                    fail(where + " shows \"" + fragment + "\" of the secret \"" + secret + "\":\n" + shown);
                }
            }
        }
    }

    /** {@link #assertNothingOf} for one secret. */
    public static void assertNothingOf(String secret, String where, String shown) {
        assertNothingOf(List.of(secret), where, shown);
    }
}
