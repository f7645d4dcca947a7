package io.github.mongolock.examples.quarkus;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * The example as built for its tests: a {@code @QuarkusTest} application also holds the test classes, so the
 * beans that only the failing-deployment tests deploy (package {@code broken}) are left out of it.
 */
public class ExampleTestProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.arc.exclude-types", "io.github.mongolock.examples.quarkus.broken.*");
    }
}
