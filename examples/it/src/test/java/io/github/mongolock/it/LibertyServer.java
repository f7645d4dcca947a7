package io.github.mongolock.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/** Open Liberty (the full runtime from Maven Central) running one WAR with the example's server.xml. */
final class LibertyServer extends ServerProcess {

    private final Path wlp;
    private final Path serverXml;
    private final Path war;
    private final Path serverDir;

    LibertyServer(String name, Path wlp, Path serverXml, Path war) throws IOException {
        super(name, wlp.resolve("usr/servers").resolve(name));
        this.wlp = wlp;
        this.serverXml = serverXml;
        this.war = war;
        this.serverDir = workDir;
    }

    @Override
    List<String> command() throws IOException {
        deleteRecursively(serverDir); // no logs or work area of an earlier run may answer for this one
        Files.createDirectories(serverDir.resolve("apps"));
        Files.copy(serverXml, serverDir.resolve("server.xml"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(war, serverDir.resolve("apps/mongolock-liberty-example.war"), StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(serverDir.resolve("bootstrap.properties"), "http.port=" + httpPort + "\n");
        Files.writeString(serverDir.resolve("jvm.options"), "-Xmx384m\n-XX:+UseSerialGC\n");
        Path script = wlp.resolve("bin/server");
        script.toFile().setExecutable(true);
        return List.of(script.toString(), "run", name);
    }

    private static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (var paths = Files.walk(directory)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    Path messagesLog() {
        return serverDir.resolve("logs/messages.log");
    }

    @Override
    List<Path> logs() {
        return List.of(messagesLog());
    }
}
