package io.github.mongolock.examples.quarkus.broken;

import io.github.mongolock.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** A valid {@code @Locked} method, which {@code BadDurationInConfigurationTest} deploys with a bad configuration. */
@ApplicationScoped
public class ConfiguredJob {

    @Locked("job")
    public void run() {
        throw new AssertionError("never started");
    }
}
