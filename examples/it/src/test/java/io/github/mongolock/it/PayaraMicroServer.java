package io.github.mongolock.it;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Payara Micro 7 (from Maven Central) running one WAR, kept on loopback: HTTP bound to 127.0.0.1 by
 * a pre-boot command, its Hazelcast data grid bound to 127.0.0.1 with every join method off. Payara Micro 7 is
 * built for Java 21 (class file 65), so it runs on a JDK 21+ found by {@link #javaHome()}, not the test's JVM.
 */
final class PayaraMicroServer extends ServerProcess {

    private final Path payaraJar;
    private final Path war;
    private final Path configDir;

    PayaraMicroServer(String name, Path payaraJar, Path war, Path configDir, Path workDir) throws IOException {
        super(name, workDir);
        this.payaraJar = payaraJar;
        this.war = war;
        this.configDir = configDir;
    }

    @Override
    List<String> command() {
        return List.of(javaHome().resolve("bin").resolve("java").toString(),
                "-Xmx384m", "-XX:+UseSerialGC",
                "-jar", payaraJar.toString(),
                "--deploy", war.toString(),
                "--contextroot", "/",
                "--port", Integer.toString(httpPort),
                "--hzconfigfile", configDir.resolve("hazelcast-loopback.xml").toString(),
                "--prebootcommandfile", configDir.resolve("preboot-commands.txt").toString(),
                "--disablephonehome");
    }

    @Override
    List<Path> logs() {
        return List.of(consoleLog());
    }

    private static final int JAVA_NEEDED = 21;

    /**
     * A JDK that runs Payara Micro 7: {@code -Dit.payara.java.home} (the pom's {@code payara.java.home}), else
     * {@code $PAYARA_JAVA_HOME}, {@code $JAVA_HOME_21_X64} or {@code $JAVA_HOME_25_X64} (set by GitHub's setup-java),
     * else the newest JDK 21+ under /usr/lib/jvm, else the test's own JVM if it is 21+.
     *
     * @throws IllegalStateException naming what was looked at, when there is none
     */
    static Path javaHome() {
        List<String> named = new ArrayList<>();
        named.add(System.getProperty("it.payara.java.home", ""));
        for (String variable : List.of("PAYARA_JAVA_HOME", "JAVA_HOME_21_X64", "JAVA_HOME_25_X64")) {
            named.add(System.getenv().getOrDefault(variable, ""));
        }
        for (String home : named) {
            if (!home.isBlank()) {
                return Path.of(home);
            }
        }
        Optional<Path> installed = Optional.empty();
        int newest = 0;
        try (DirectoryStream<Path> jdks = Files.newDirectoryStream(Path.of("/usr/lib/jvm"))) {
            for (Path jdk : jdks) {
                int version = featureVersion(jdk);
                if (version >= JAVA_NEEDED && version > newest && Files.isExecutable(jdk.resolve("bin/java"))) {
                    newest = version;
                    installed = Optional.of(jdk);
                }
            }
        } catch (IOException noJvmDirectory) {
            // fall through to the test's own JVM
        }
        if (installed.isPresent()) {
            return installed.get();
        }
        if (Runtime.version().feature() >= JAVA_NEEDED) {
            return Path.of(System.getProperty("java.home"));
        }
        throw new IllegalStateException("Payara Micro 7 needs Java " + JAVA_NEEDED + " or later, and none was found:"
                + " set -Dpayara.java.home=<JDK 21+> (or PAYARA_JAVA_HOME), or install one under /usr/lib/jvm");
    }

    /** The feature version in {@code <jdk>/release} (JAVA_VERSION="25.0.1" gives 25), 0 when unreadable. */
    private static int featureVersion(Path jdk) {
        try {
            for (String line : Files.readAllLines(jdk.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    return Integer.parseInt(version.split("[.+-]")[0]);
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            return 0;
        }
        return 0;
    }
}
