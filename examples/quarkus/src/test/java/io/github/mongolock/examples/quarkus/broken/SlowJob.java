package io.github.mongolock.examples.quarkus.broken;

import io.github.mongolock.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** A bad duration in {@code @Locked}: only {@code BadDurationInAnnotationTest} deploys it. */
@ApplicationScoped
public class SlowJob {

    @Locked(value = "slow-job", waitTime = "5 seconds")
    public void run() {
        throw new AssertionError("never deployed");
    }
}
