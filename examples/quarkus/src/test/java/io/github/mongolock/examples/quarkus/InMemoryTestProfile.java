package io.github.mongolock.examples.quarkus;

import io.github.mongolock.memory.InMemoryLocks;
import java.util.HashMap;
import java.util.Map;

/**
 * The example built and run with {@code mongolock.uri=memory:}: its locks live in the store of an
 * {@link InMemoryLocks} bean, no MongoDB. The build must see the value (a test profile's overrides are seen by the
 * build as well as at startup): the bean is registered when the application is built.
 */
public class InMemoryTestProfile extends ExampleTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> overrides = new HashMap<>(super.getConfigOverrides());
        overrides.put("mongolock.uri", InMemoryLocks.URI);
        return overrides;
    }
}
