package io.github.mongolock.examples.quarkus;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.mongolock.examples.quarkus.broken.SlowJob;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A bad duration in {@code @Locked} fails the Quarkus build with mongolock's message. */
class BadDurationInAnnotationTest {

    @RegisterExtension
    static final QuarkusUnitTest BUILD = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(SlowJob.class))
            .assertException(failure -> {
                String messages = Failures.messages(failure);
                assertTrue(messages.contains("MONGOLOCK-CDI-001: @Locked(waitTime) on " + SlowJob.class.getName() + ".run() = \"5 seconds\""
                        + " is not an ISO-8601 duration"), messages);
            });

    @Test
    void theBuildFails() {
        fail("the application must not have started");
    }
}
