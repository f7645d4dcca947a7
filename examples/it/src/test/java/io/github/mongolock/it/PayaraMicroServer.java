package io.github.mongolock.it;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Payara Micro 6 (from Maven Central) running one WAR, kept on loopback: HTTP bound to 127.0.0.1 by
 * a pre-boot command, its Hazelcast data grid bound to 127.0.0.1 with every join method off.
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
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
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
}
