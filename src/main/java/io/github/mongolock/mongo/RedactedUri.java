package io.github.mongolock.mongo;

import java.util.Locale;
import java.util.Optional;

/**
 * A MongoDB connection string as it may be shown to people: in exception messages, log lines, {@code toString()}s
 * and the command line's output. The one place that decides what of a connection string is secret; every path that
 * shows one, or a message that may quote one, goes through it.
 *
 * <ul>
 *   <li>The user information is replaced by {@code ***}: everything from the scheme's {@code ://} (or from the
 *       start, without a scheme) to the <em>last</em> {@code @} of the string, so a password with an unescaped
 *       {@code @}, {@code /}, {@code :}, {@code ?} or {@code %} is hidden whole:
 *       {@code mongodb://user:p@ss:w/rd@db1/app} is shown {@code mongodb://***@db1/app}.</li>
 *   <li>The value of every option whose name contains {@code pass}, {@code pwd}, {@code secret}, {@code token} or
 *       {@code credential} (any case), and of {@code authMechanismProperties} (it carries {@code AWS_SESSION_TOKEN}),
 *       is replaced by {@code ***}, with the pieces without {@code =} that follow it up to the next option (the
 *       rest of a value with an unescaped {@code &} or {@code ;}): {@code ?tlsCertificateKeyFilePassword=k&y&w=1}
 *       is shown {@code ?tlsCertificateKeyFilePassword=***&w=1}.</li>
 * </ul>
 *
 * <p>A string the driver refuses is shown the same way, but the driver's own reason ({@code IllegalArgumentException}
 * from {@code new ConnectionString(...)}) is shown, or attached as a cause, only when nothing was hidden: it can quote
 * a piece of a badly escaped password ({@code Error at index 0 in: "of"} for {@code 50%off}). Otherwise
 * {@link #refusal} says what to check instead.
 *
 * <p>Immutable; keeps only the text it shows, never the string it was made from.
 */
public final class RedactedUri {

    private static final String MASK = "***";
    /** Where a connection string quoted in free text ends at the latest. */
    private static final String QUOTE_ENDS = "\"'`\n\r<>";

    private final String shown;
    private final boolean secretsHidden;

    private RedactedUri(String shown, boolean secretsHidden) {
        this.shown = shown;
        this.secretsHidden = secretsHidden;
    }

    /** {@code uri} (a whole configured value: null shows as {@code null}) with its secrets hidden. */
    public static RedactedUri of(String uri) {
        if (uri == null) {
            return new RedactedUri("null", false);
        }
        int scheme = uri.indexOf("://");
        StringBuilder shown = new StringBuilder(uri.length());
        int userInfoFrom = scheme < 0 ? 0 : scheme + 3;
        shown.append(uri, 0, userInfoFrom);
        boolean hidden = redact(uri, userInfoFrom, uri.length(), shown);
        return new RedactedUri(shown.toString(), hidden);
    }

    /**
     * {@code text} with every connection string quoted in it ({@code scheme://...}, up to the next quote character,
     * line end or the end of the text) redacted as {@link #of} does: for messages written by others, e.g. a Config
     * implementation's, that may quote one.
     */
    public static String within(String text) {
        if (text == null || !text.contains("://")) {
            return text;
        }
        StringBuilder shown = new StringBuilder(text.length());
        int done = 0;
        int scheme = text.indexOf("://");
        while (scheme >= 0) {
            int from = scheme + 3;
            int to = from;
            while (to < text.length() && QUOTE_ENDS.indexOf(text.charAt(to)) < 0) {
                to++;
            }
            shown.append(text, done, from);
            redact(text, from, to, shown);
            done = to;
            scheme = text.indexOf("://", to);
        }
        return shown.append(text, done, text.length()).toString();
    }

    /**
     * Appends {@code uri[from, to)} (what follows the scheme) to {@code shown}, user information and secret option
     * values replaced.
     *
     * @return whether anything was hidden
     */
    private static boolean redact(String uri, int from, int to, StringBuilder shown) {
        int lastAt = uri.lastIndexOf('@', to - 1);
        boolean hidden = false;
        int rest = from;
        if (lastAt >= from) {
            shown.append(MASK).append('@');
            rest = lastAt + 1;
            hidden = true;
        }
        int query = uri.indexOf('?', rest);
        if (query < 0 || query >= to) {
            shown.append(uri, rest, to);
            return hidden;
        }
        shown.append(uri, rest, query + 1);
        boolean inSecret = false;
        boolean first = true;
        int option = query + 1;
        while (option <= to) {
            int end = option;
            while (end < to && uri.charAt(end) != '&' && uri.charAt(end) != ';') {
                end++;
            }
            String piece = uri.substring(option, end);
            int equals = piece.indexOf('=');
            if (equals < 0 && inSecret) {
                hidden = true; // the rest of a secret value that held an unescaped '&'
            } else {
                inSecret = equals >= 0 && secretOption(piece.substring(0, equals));
                if (!first) {
                    shown.append(uri.charAt(option - 1));
                }
                if (inSecret) {
                    shown.append(piece, 0, equals + 1).append(MASK);
                    hidden = true;
                } else {
                    shown.append(piece);
                }
                first = false;
            }
            option = end + 1;
        }
        return hidden;
    }

    private static boolean secretOption(String name) {
        String key = name.strip().toLowerCase(Locale.ROOT);
        return key.contains("pass") || key.contains("pwd") || key.contains("secret") || key.contains("token")
                || key.contains("credential") || key.equals("authmechanismproperties");
    }

    /** Whether anything was hidden: then the driver's messages about the string may quote a secret. */
    public boolean secretsHidden() {
        return secretsHidden;
    }

    /**
     * Why the driver refused the string, as it may be shown: the driver's own message when nothing was hidden, else
     * what to check, without any of the driver's words.
     */
    public String refusal(IllegalArgumentException invalid) {
        if (!secretsHidden) {
            return invalid.getMessage();
        }
        return "the driver's detail is left out, since it may quote part of the password or of an option that carries one."
                + " Check that the user name and password are percent-encoded ('/' as %2F, '@' as %40, ':' as %3A,"
                + " '%' as %25, '?' as %3F, '#' as %23), that the port is a number and that the options are known;"
                + " the same URI without its credentials shows the driver's detail.";
    }

    /** The driver's refusal as a cause to attach, when its message cannot quote a secret (nothing was hidden). */
    public Optional<IllegalArgumentException> safeCause(IllegalArgumentException invalid) {
        return secretsHidden ? Optional.empty() : Optional.of(invalid);
    }

    /** The string as it may be shown. */
    @Override
    public String toString() {
        return shown;
    }
}
