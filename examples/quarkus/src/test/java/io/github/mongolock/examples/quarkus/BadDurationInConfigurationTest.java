package io.github.mongolock.examples.quarkus;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.mongolock.examples.quarkus.broken.ConfiguredJob;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad durations in the configuration the build sees (application.properties) fail the Quarkus build, all
 * reported together with mongolock's messages.
 */
class BadDurationInConfigurationTest {

    @RegisterExtension
    static final QuarkusUnitTest START = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(ConfiguredJob.class))
            .overrideConfigKey("mongolock.lease-time", "thirty seconds")
            .overrideConfigKey(ConfiguredJob.class.getName() + "/run/Locked/wait-time", "-PT1S")
            .assertException(failure -> {
                String messages = Failures.messages(failure);
                assertTrue(messages.contains("MONGOLOCK-CDI-001: mongolock.lease-time = \"thirty seconds\" is not an ISO-8601 duration"),
                        messages);
                assertTrue(messages.contains("MONGOLOCK-CDI-002: " + ConfiguredJob.class.getName() + "/run/Locked/wait-time = \"-PT1S\" is negative"),
                        messages);
            });

    @Test
    void theBuildFails() {
        fail("the application must not have started");
    }
}
