import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Prints the home of a JDK that builds and runs Helidon 4 (Java 21+), for the pom to fork javac and the tests' JVM
 * there. Run by the build in the JVM Maven runs on, as a source-file program: {@code java FindJdk.java [explicit home]}.
 *
 * <p>The first that is set wins: the argument (the pom's {@code helidon.java.home}, e.g. {@code -Dhelidon.java.home=...}),
 * {@code $HELIDON_JAVA_HOME}, the JDK Maven runs on when it is 21+, {@code $JAVA_HOME_21_X64} or {@code $JAVA_HOME_25_X64}
 * (set by GitHub's setup-java), else the newest JDK 21+ under /usr/lib/jvm. Exits 1 naming what it looked at when none is
 * found or a named one is not a JDK 21+.
 */
public class FindJdk {

    private static final int NEEDED = 21;

    public static void main(String[] args) {
        List<String> tried = new ArrayList<>();
        String explicit = args.length > 0 ? args[0].trim() : "";
        if (explicit.startsWith("${")) {
            explicit = ""; // the property was not set
        }
        for (String[] named : new String[][] {{"helidon.java.home", explicit},
                {"$HELIDON_JAVA_HOME", System.getenv().getOrDefault("HELIDON_JAVA_HOME", "")}}) {
            if (!named[1].isBlank()) {
                Path home = Path.of(named[1]);
                if (usable(home)) {
                    print(home);
                    return;
                }
                fail(named[0] + " = " + home + " is not a JDK " + NEEDED + "+ (no bin/javac, or its release file says an older Java)");
            }
        }
        if (Runtime.version().feature() >= NEEDED && usable(Path.of(System.getProperty("java.home")))) {
            print(Path.of(System.getProperty("java.home")));
            return;
        }
        tried.add("the JDK Maven runs on (" + System.getProperty("java.home") + ", Java " + Runtime.version().feature() + ")");
        for (String variable : List.of("JAVA_HOME_21_X64", "JAVA_HOME_25_X64")) {
            String value = System.getenv().getOrDefault(variable, "");
            if (!value.isBlank() && usable(Path.of(value))) {
                print(Path.of(value));
                return;
            }
            tried.add("$" + variable + (value.isBlank() ? " (unset)" : " = " + value));
        }
        Optional<Path> newest = Optional.empty();
        int newestVersion = 0;
        try (DirectoryStream<Path> jdks = Files.newDirectoryStream(Path.of("/usr/lib/jvm"))) {
            for (Path jdk : jdks) {
                int version = featureVersion(jdk);
                if (version >= NEEDED && version > newestVersion && Files.isExecutable(jdk.resolve("bin/javac"))) {
                    newestVersion = version;
                    newest = Optional.of(jdk.toRealPath());
                }
            }
        } catch (IOException noJvmDirectory) {
            // nothing installed there
        }
        if (newest.isPresent()) {
            print(newest.get());
            return;
        }
        tried.add("/usr/lib/jvm/*");
        fail("Helidon 4 needs a JDK " + NEEDED + "+ and none was found; looked at " + String.join(", ", tried)
                + ". Install one, or name it: -Dhelidon.java.home=<jdk> or HELIDON_JAVA_HOME=<jdk>.");
    }

    private static boolean usable(Path home) {
        return Files.isExecutable(home.resolve("bin/javac")) && featureVersion(home) >= NEEDED;
    }

    /** The feature version in {@code <jdk>/release} (JAVA_VERSION="25.0.1" gives 25), 0 when unreadable. */
    private static int featureVersion(Path jdk) {
        try {
            for (String line : Files.readAllLines(jdk.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=")) {
                    return Integer.parseInt(line.substring("JAVA_VERSION=".length()).replace("\"", "").split("[.+-]")[0]);
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            return 0;
        }
        return 0;
    }

    private static void print(Path home) {
        System.out.println(home);
    }

    private static void fail(String message) {
        System.err.println("[FindJdk] " + message);
        System.exit(1);
    }
}
