package io.github.mongolock.examples.quarkus;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.mongolock.examples.quarkus.broken.NegativePermitsJob;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A negative {@code @Locked(permits)} fails the Quarkus build with mongolock's message, as it fails a Weld deployment. */
class BadPermitsInAnnotationTest {

    @RegisterExtension
    static final QuarkusUnitTest BUILD = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(NegativePermitsJob.class))
            .assertException(failure -> {
                String messages = Failures.messages(failure);
                assertTrue(messages.contains("MONGOLOCK-CDI-024: @Locked(permits) on " + NegativePermitsJob.class.getName()
                        + ".run() = -2 is not valid: write 0 for a lock"), messages);
            });

    @Test
    void theBuildFails() {
        fail("the application must not have started");
    }
}
