package io.github.mongolock.examples.quarkus;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.mongolock.examples.quarkus.broken.TwoAccessTemplatesJob;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Read-write access with several names and a multi-lock without a name fail the Quarkus build with mongolock's
 * messages, as they fail a Weld deployment: the build-compatible extension validates them too.
 */
class BadReadWriteAndMultiLockTest {

    @RegisterExtension
    static final QuarkusUnitTest BUILD = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(TwoAccessTemplatesJob.class))
            .assertException(failure -> {
                String messages = Failures.messages(failure);
                assertTrue(messages.contains("MONGOLOCK-CDI-031: @Locked(access = READ) on " + TwoAccessTemplatesJob.class.getName()
                        + ".run(String) names several templates"), messages);
                assertTrue(messages.contains("MONGOLOCK-CDI-026: @Locked({}) on " + TwoAccessTemplatesJob.class.getName()
                        + ".noName() names no lock"), messages);
            });

    @Test
    void theBuildFails() {
        fail("the application must not have started");
    }
}
