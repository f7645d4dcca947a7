package io.github.mongolock.benchmark;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A build of the library that the forked probes of cases 6 and 8 run: the one under test (the benchmark's own
 * classpath), or an earlier one given as {@code before-jar=PATH} (issue 20's before and after, side by side in one
 * run against one MongoDB). The probes use only API both builds share; the earlier jar is copied into
 * {@code target/before-lib} first, so rebuilding it during a run cannot change what the run measures.
 *
 * @param label       how the tables name it
 * @param classpath   the forked JVMs' classpath
 * @param description the jar's name, size and SHA-256 prefix, for the report
 */
record LibraryBuild(String label, String classpath, String description) {

    static LibraryBuild underTest(Path jar) {
        return new LibraryBuild("under test", System.getProperty("java.class.path"), describe(jar));
    }

    /** The benchmark's classpath with {@code jar} in place of the library jar under test. */
    static LibraryBuild earlier(String label, Path jar) {
        try {
            Path copy = Path.of("target", "before-lib", jar.getFileName().toString()).toAbsolutePath();
            Files.createDirectories(copy.getParent());
            Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING);
            List<String> entries = new ArrayList<>();
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
                if (entry.endsWith("*")) {
                    // The launcher expands lib/*; here each jar is listed, all but the library's.
                    try (Stream<Path> jars = Files.list(Path.of(entry.substring(0, entry.length() - 1)))) {
                        jars.filter(p -> p.toString().endsWith(".jar"))
                                .filter(p -> !p.getFileName().toString().startsWith("mongolock-"))
                                .sorted().forEach(p -> entries.add(p.toString()));
                    }
                } else if (!Path.of(entry).getFileName().toString().startsWith("mongolock-")) {
                    entries.add(entry);
                }
            }
            entries.add(copy.toString());
            return new LibraryBuild(label, String.join(File.pathSeparator, entries), describe(copy));
        } catch (IOException failed) {
            throw new UncheckedIOException("Could not use the earlier build " + jar + ": " + failed.getMessage(), failed);
        }
    }

    /** The jar's name, size and SHA-256 prefix. */
    static String describe(Path jar) {
        try {
            if (!Files.isRegularFile(jar)) {
                return jar.toString();
            }
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(jar));
            StringBuilder hex = new StringBuilder();
            for (int i = 0; i < 6; i++) {
                hex.append(String.format("%02x", digest[i]));
            }
            return jar.getFileName() + " (" + Files.size(jar) + " bytes, sha256 " + hex + "...)";
        } catch (IOException | NoSuchAlgorithmException unknown) {
            return "unknown (" + unknown + ")";
        }
    }
}
