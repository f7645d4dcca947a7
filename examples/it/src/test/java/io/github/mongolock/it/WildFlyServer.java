package io.github.mongolock.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One WildFly standalone server (the distribution unpacked from Maven Central) running one WAR as {@code ROOT.war},
 * so at context root {@code /}. Several instances share the unpacked distribution ({@code jboss.home.dir}) and each
 * has its own base directory ({@code jboss.server.base.dir}: configuration, deployments, data, log, tmp) under
 * {@link #workDir}. Everything binds to 127.0.0.1: HTTP and HTTPS ({@code -b}), and the management interface
 * ({@code -bmanagement}), which also serves MicroProfile Health ({@code /health/ready}), on ports of their own.
 *
 * <p>The configuration is the distribution's {@code standalone.xml} (EJBs, Jakarta Concurrency, MicroProfile Config)
 * with the {@code microprofile-health-smallrye} extension and subsystem copied in from the same distribution's
 * {@code standalone-microprofile.xml} (which has no EJB subsystem). The process is the server's JVM itself, started
 * as {@code standalone.sh} would start it: SIGTERM stops it cleanly, and no shell survives it.
 */
final class WildFlyServer extends ServerProcess {

    private final Path home;
    private final Path war;
    private final Path baseDir;
    final int managementPort;
    private final int httpsPort;

    WildFlyServer(String name, Path home, Path war, Path workDir) throws IOException {
        super(name, workDir.toAbsolutePath()); // the server runs in workDir: every path it is given is absolute
        this.home = home.toAbsolutePath();
        this.war = war;
        this.baseDir = this.workDir.resolve("base");
        this.managementPort = freePort();
        this.httpsPort = freePort();
    }

    /** The management interface's base URL; MicroProfile Health answers there, not on the HTTP port. */
    String managementUrl() {
        return "http://127.0.0.1:" + managementPort;
    }

    @Override
    List<String> command() throws IOException {
        deleteRecursively(baseDir); // no data, log or deployment marker of an earlier run may answer for this one
        Path configuration = Files.createDirectories(baseDir.resolve("configuration"));
        Path distributionConfiguration = home.resolve("standalone/configuration");
        try (var files = Files.list(distributionConfiguration)) {
            for (Path file : files.toList()) {
                Files.copy(file, configuration.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Files.writeString(configuration.resolve("standalone.xml"), withMicroProfileHealth(
                withoutUnusedSubsystems(Files.readString(distributionConfiguration.resolve("standalone.xml"), StandardCharsets.UTF_8)),
                Files.readString(distributionConfiguration.resolve("standalone-microprofile.xml"), StandardCharsets.UTF_8)),
                StandardCharsets.UTF_8);
        Files.createDirectories(baseDir.resolve("deployments"));
        Files.copy(war, baseDir.resolve("deployments/ROOT.war"), StandardCopyOption.REPLACE_EXISTING);

        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-D[Standalone]", "-Xms64m", "-Xmx384m", "-XX:+UseSerialGC",
                "-Djava.net.preferIPv4Stack=true", "-Djboss.modules.system.pkgs=org.jboss.byteman",
                "-Djava.awt.headless=true"));
        // What bin/common.sh adds on a modular JDK.
        for (String export : List.of("java.desktop/sun.awt", "java.naming/com.sun.jndi.ldap",
                "java.naming/com.sun.jndi.url.ldap", "java.naming/com.sun.jndi.url.ldaps", "jdk.naming.dns/com.sun.jndi.dns")) {
            command.add("--add-exports=" + export + "=ALL-UNNAMED");
        }
        for (String open : List.of("java.base/java.lang", "java.base/java.lang.invoke", "java.base/java.lang.reflect",
                "java.base/java.io", "java.base/java.net", "java.base/java.security", "java.base/java.util",
                "java.base/java.util.concurrent", "java.management/javax.management", "java.naming/javax.naming")) {
            command.add("--add-opens=" + open + "=ALL-UNNAMED");
        }
        command.addAll(List.of(
                "-Dorg.jboss.boot.log.file=" + serverLog(),
                "-Dlogging.configuration=" + configuration.resolve("logging.properties").toUri(),
                "-jar", home.resolve("jboss-modules.jar").toString(),
                "-mp", home.resolve("modules").toString(),
                "org.jboss.as.standalone",
                "-Djboss.home.dir=" + home,
                "-Djboss.server.base.dir=" + baseDir,
                "-b", "127.0.0.1", "-bmanagement", "127.0.0.1",
                "-Djboss.http.port=" + httpPort,
                "-Djboss.https.port=" + httpsPort,
                "-Djboss.management.http.port=" + managementPort,
                // the transaction manager's node id, unique per instance (WFLYTX0013 warns about the default)
                "-Djboss.tx.node.id=" + name));
        return command;
    }

    /**
     * Subsystems of {@code standalone.xml} the example does not use, as (extension module, subsystem name): dropped so
     * that two servers boot faster on a small machine. None is referenced by what stays.
     */
    private static final List<List<String>> UNUSED_SUBSYSTEMS = List.of(
            List.of("org.jboss.as.jdr", "jdr"), List.of("org.jboss.as.jsf", "jsf"), List.of("org.jboss.as.mail", "mail"),
            List.of("org.jboss.as.pojo", "pojo"), List.of("org.jboss.as.sar", "sar"),
            List.of("org.jboss.as.webservices", "webservices"), List.of("org.wildfly.extension.batch.jberet", "batch-jberet"),
            List.of("org.wildfly.extension.elytron-oidc-client", "elytron-oidc-client"),
            List.of("org.wildfly.extension.jakarta.data", "jakarta-data"), List.of("org.wildfly.extension.micrometer", "micrometer"),
            List.of("org.wildfly.extension.microprofile.jwt-smallrye", "microprofile-jwt-smallrye"));

    static String withoutUnusedSubsystems(String standalone) {
        String trimmed = standalone;
        for (List<String> unused : UNUSED_SUBSYSTEMS) {
            trimmed = trimmed.replaceFirst("\\s*<extension module=\"" + Pattern.quote(unused.get(0)) + "\"/>", "");
            Matcher subsystem = Pattern.compile("\\s*<subsystem xmlns=\"urn:(jboss:domain:|wildfly:)?" + Pattern.quote(unused.get(1))
                    + ":[^\"]+\"[^>]*?(/>|>.*?</subsystem>)", Pattern.DOTALL).matcher(trimmed);
            if (subsystem.find()) {
                trimmed = trimmed.substring(0, subsystem.start()) + trimmed.substring(subsystem.end());
            }
        }
        return trimmed;
    }

    /**
     * {@code standalone.xml} with MicroProfile Health: the extension and the subsystem element taken verbatim from
     * {@code standalone-microprofile.xml}, so that they match this distribution's schema versions.
     */
    static String withMicroProfileHealth(String standalone, String microprofile) {
        Matcher extension = Pattern.compile("<extension module=\"org\\.wildfly\\.extension\\.microprofile\\.health-smallrye\"/>")
                .matcher(microprofile);
        Matcher subsystem = Pattern.compile("<subsystem xmlns=\"urn:wildfly:microprofile-health-smallrye:[^\"]+\"[^>]*?(/>|>.*?</subsystem>)",
                Pattern.DOTALL).matcher(microprofile);
        if (!extension.find() || !subsystem.find()) {
            throw new IllegalStateException("standalone-microprofile.xml has no microprofile-health-smallrye extension or subsystem");
        }
        if (standalone.contains("microprofile-health-smallrye")) {
            return standalone;
        }
        String withExtension = standalone.replaceFirst("</extensions>", Matcher.quoteReplacement(extension.group() + "\n    </extensions>"));
        int profileEnd = withExtension.indexOf("</profile>");
        if (profileEnd < 0) {
            throw new IllegalStateException("standalone.xml has no <profile>");
        }
        return withExtension.substring(0, profileEnd) + "    " + subsystem.group() + "\n    " + withExtension.substring(profileEnd);
    }

    private static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (var paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    Path serverLog() {
        return baseDir.resolve("log/server.log");
    }

    @Override
    List<Path> logs() {
        return List.of(serverLog());
    }
}
