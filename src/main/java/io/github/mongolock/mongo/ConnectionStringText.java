package io.github.mongolock.mongo;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a MongoDB connection string may be shown to people (exception messages, logs, {@code toString()}, the command
 * line): never with its credentials. The one place that decides it, for the builder, the CDI settings and the
 * command line. Stateless.
 *
 * <p>A password with an unescaped {@code /}, {@code @} or {@code :} is the most common mistake in a connection
 * string, and then the string does not parse where its author expects: the user information is therefore taken
 * to run from the scheme to the <em>last</em> {@code @} of the whole string (over-hiding a host is harmless, showing
 * part of a password is not). Options that carry secrets ({@code password}, {@code secret} or {@code token} in their
 * name, and {@code authMechanismProperties}, which may carry an AWS session token) have their values hidden too.
 * The driver's own message about an invalid string may quote any part of it, so it is shown only for a string that
 * carries none of these.
 */
public final class ConnectionStringText {

    private static final String HIDDEN = "***";
    private static final Pattern SECRET_OPTION = Pattern.compile(
            "([?&;][^=&;]*(?:password|secret|token|authmechanismproperties)[^=&;]*=)[^&;]*", Pattern.CASE_INSENSITIVE);

    private ConnectionStringText() {
    }

    /**
     * {@code uri} as it may be shown: {@code mongodb://user:p@ss@host/app} becomes {@code mongodb://***@host/app}, and
     * secret options read {@code ***}. Null stays null.
     */
    public static String redacted(String uri) {
        if (uri == null) {
            return null;
        }
        int scheme = uri.indexOf("://");
        int start = scheme < 0 ? 0 : scheme + 3;
        int at = uri.lastIndexOf('@');
        String shown = at >= start ? uri.substring(0, start) + HIDDEN + "@" + uri.substring(at + 1) : uri;
        Matcher secret = SECRET_OPTION.matcher(shown);
        return secret.find() ? secret.replaceAll("$1" + HIDDEN) : shown;
    }

    /** Whether {@code uri} carries anything {@link #redacted} hides. */
    public static boolean carriesSecrets(String uri) {
        return uri != null && !redacted(uri).equals(uri);
    }

    /**
     * Why {@code uri} is not a valid connection string, for a message that names it as {@link #redacted}: the driver's
     * detail where the string carries no secret, else what to check instead (the detail could quote a password).
     */
    public static String invalidBecause(String uri, IllegalArgumentException invalid) {
        if (!carriesSecrets(uri)) {
            return invalid.getMessage();
        }
        return "the driver's detail is left out, since the string carries credentials. Check that the user name and"
                + " password are percent-encoded (':' as %3A, '/' as %2F, '@' as %40, '%' as %25, and non-ASCII"
                + " characters as their UTF-8 bytes), that every port is a number and every option is known; the same"
                + " string without credentials shows the driver's detail.";
    }
}
