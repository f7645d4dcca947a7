package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code mongolock.push-wake-up}: on by default, off when false, a deployment error when neither. */
@ExtendWith(MongoBackend.class)
class PushWakeUpSettingTest {

    @Test
    void onByDefaultAndOffWhenFalse(TestMongo mongo) {
        try (WeldContainer node = WeldNodes.start("push-default", WeldNodes.settings(mongo, mongo.freshDatabase()))) {
            assertEquals("IDLE", node.select(LockStoreStatus.class).get().pushWakeUp(), "ready, opened on the first remote wait");
        }
        try (WeldContainer node = WeldNodes.start("push-off", WeldNodes.settings(mongo, mongo.freshDatabase(),
                "mongolock.push-wake-up", "false"))) {
            assertEquals("UNAVAILABLE", node.select(LockStoreStatus.class).get().pushWakeUp(), "polling only");
        }
    }

    @Test
    void anythingElseStopsTheDeploymentNamingKeyAndValue(TestMongo mongo) {
        RuntimeException failure = assertThrows(RuntimeException.class, () -> WeldNodes.start("push-bad",
                WeldNodes.settings(mongo, mongo.freshDatabase(), "mongolock.push-wake-up", "sometimes")).close());
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        assertTrue(messages.toString().contains("mongolock.push-wake-up") && messages.toString().contains("sometimes")
                && messages.toString().contains("true or false"), messages.toString());
    }
}
