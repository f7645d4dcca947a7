package io.github.mongolock;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The layering of STYLE.md: the algorithm knows neither MongoDB nor CDI. */
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
}
