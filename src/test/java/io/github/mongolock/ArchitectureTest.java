package io.github.mongolock;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The layering of STYLE.md: the algorithm knows neither MongoDB nor CDI, and its classes read in one sitting. */
class ArchitectureTest {

    private final JavaClasses production = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.github.mongolock");

    @Test
    void coreImportsNeitherMongoNorCdi() {
        noClasses().that().resideInAPackage("io.github.mongolock.core..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "com.mongodb..", "org.bson..", "jakarta.enterprise..", "jakarta.interceptor..",
                        "org.eclipse.microprofile..", "io.github.mongolock.mongo..", "io.github.mongolock.cdi..")
                .check(production);
    }

    @Test
    void theMongoStoreKnowsNothingOfCdi() {
        noClasses().that().resideInAPackage("io.github.mongolock.mongo..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "jakarta.enterprise..", "jakarta.interceptor..", "org.eclipse.microprofile..",
                        "io.github.mongolock.cdi..")
                .check(production);
    }

    /** The test kit's store runs where neither MongoDB nor a CDI container is: plain JUnit tests. */
    @Test
    void theInMemoryStoreKnowsNeitherMongoNorCdi() {
        noClasses().that().resideInAPackage("io.github.mongolock.memory..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "com.mongodb..", "org.bson..", "jakarta.enterprise..", "jakarta.interceptor..",
                        "org.eclipse.microprofile..", "io.github.mongolock.mongo..", "io.github.mongolock.cdi..")
                .check(production);
    }

    /** The OpenTelemetry API is optional: only these two places may name it, and they are loaded only when it is there. */
    @Test
    void onlyTheTelemetryBindingNamesOpenTelemetry() {
        noClasses().that().resideOutsideOfPackage("io.github.mongolock.otel..")
                .and().doNotHaveFullyQualifiedName("io.github.mongolock.cdi.OpenTelemetryBinding")
                .should().dependOnClassesThat().resideInAnyPackage("io.opentelemetry..")
                .check(production);
    }

    @Test
    void productionCodeNeverUsesTheTestStandIn() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("de.bwaldvogel..", "org.testcontainers..")
                .check(production);
    }

    /** Leader election is built on the public lock API only, as LeaderElections' javadoc promises. */
    @Test
    void leaderElectionUsesThePublicApiOnly() {
        noClasses().that().resideInAPackage("io.github.mongolock.election..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.github.mongolock.core..", "io.github.mongolock.mongo..", "io.github.mongolock.cdi..",
                        "com.mongodb..", "org.bson..", "jakarta.enterprise..")
                .check(production);
    }

    /** The operator's command is built on the store's public admin API (mongo) and the public API only. */
    @Test
    void theAdminCommandUsesNeitherTheCoreNorCdi() {
        noClasses().that().resideInAPackage("io.github.mongolock.admin..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.github.mongolock.core..", "io.github.mongolock.cdi..", "io.github.mongolock.memory..",
                        "jakarta.enterprise..", "org.eclipse.microprofile..")
                .check(production);
    }

    /** The root package is the API: leader election's implementation lives in its own package. */
    @Test
    void theRootPackageHoldsNoElectionImplementation() {
        for (String moved : List.of("ElectionCandidate", "OrderedCallbacks")) {
            noClasses().should().haveFullyQualifiedName("io.github.mongolock." + moved).check(production);
        }
    }

    /** STYLE.md: a class reads in one sitting; past this, split it along its responsibilities. */
    private static final int MAX_LINES = 400;

    @Test
    void noClassInCoreOrMongoIsLongerThanItsLimit() throws IOException {
        Path sources = Path.of("src/main/java/io/github/mongolock");
        List<String> tooLong = new ArrayList<>();
        for (String layer : List.of("core", "mongo")) {
            try (Stream<Path> files = Files.walk(sources.resolve(layer))) {
                for (Path file : files.filter(path -> path.toString().endsWith(".java")).sorted().toList()) {
                    long lines;
                    try (Stream<String> text = Files.lines(file)) {
                        lines = text.count();
                    }
                    if (lines > MAX_LINES) {
                        tooLong.add(sources.relativize(file) + " (" + lines + " lines)");
                    }
                }
            }
        }
        assertEquals(List.of(), tooLong, "classes over " + MAX_LINES + " lines: split them along their responsibilities"
                + " (STYLE.md, Style 11)");
    }
}
