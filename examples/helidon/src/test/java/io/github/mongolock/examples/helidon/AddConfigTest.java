package io.github.mongolock.examples.helidon;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockSession;
import io.helidon.microprofile.testing.AddConfigSource;
import io.helidon.microprofile.testing.junit5.AddConfig;
import io.helidon.microprofile.testing.junit5.HelidonTest;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.junit.jupiter.api.Test;

/**
 * Helidon's own way of giving a test its settings, {@code @AddConfig} and {@code @AddConfigSource}: Helidon's test
 * support puts them in place in its {@code BeforeBeanDiscovery} observer, and mongolock reads its settings only once
 * that event is over, so it sees them (here the instance id its lock owners start with, and the stand-in's URI).
 */
@HelidonTest
@AddConfig(key = "mongolock.instance-id", value = "added-by-the-test")
class AddConfigTest {

    @AddConfigSource
    static ConfigSource database() {
        return TestDatabase.configSource();
    }

    @Inject
    LockManager locks;

    @Test
    void mongolockReadsTheSettingsTheTestAdded() {
        try (LockSession held = locks.acquire("added-config")) {
            LockInfo info = locks.inspect("added-config").orElseThrow();
            assertTrue(info.owner().startsWith("added-by-the-test:"), "owner " + info.owner());
        }
    }
}
