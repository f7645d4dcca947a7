package io.github.mongolock.examples.quarkus.broken;

import io.github.mongolock.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** Read access with several name templates: only {@code BadReadWriteAndMultiLockTest} deploys it. */
@ApplicationScoped
public class TwoAccessTemplatesJob {

    @Locked(value = {"catalog-{0}", "prices-{0}"}, access = Locked.Access.READ)
    public void run(String region) {
        throw new AssertionError("never deployed");
    }

    @Locked({})
    public void noName() {
        throw new AssertionError("never deployed");
    }
}
