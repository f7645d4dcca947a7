package io.github.mongolock.examples.quarkus.broken;

import io.github.mongolock.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** A negative semaphore limit in {@code @Locked(permits)}: only {@code BadPermitsInAnnotationTest} deploys it. */
@ApplicationScoped
public class NegativePermitsJob {

    @Locked(value = "export", permits = -2)
    public void run() {
        throw new AssertionError("never deployed");
    }
}
