package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.testing.MongoBackend;
import io.github.mongolock.testing.TestMongo;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The readiness check registers itself where the Health API is present and reports the driver's view. */
@ExtendWith(MongoBackend.class)
class ReadinessCheckTest {

    @BeforeAll
    static void healthImplementation() {
        HealthCheckResponse.setResponseProvider(new PlainHealthResponses());
    }

    private static HealthCheckResponse readiness(WeldContainer node) {
        return node.select(HealthCheck.class, Readiness.Literal.INSTANCE).get().call();
    }

    @Test
    void upWhileMongoDbIsReachable(TestMongo mongo) throws Exception {
        try (WeldContainer node = WeldNodes.weld("ready", WeldNodes.settings(mongo, mongo.freshDatabase(),
                        "mongolock.instance-id", "ready-node"))
                .addExtension(new ReadinessCheckRegistration()).initialize()) {
            node.select(io.github.mongolock.LockManager.class).get().acquire("warm-up").close();
            HealthCheckResponse response = readiness(node);
            assertEquals("mongolock", response.getName());
            assertEquals(HealthCheckResponse.Status.UP, response.getStatus());
            assertEquals("ready-node", response.getData().orElseThrow().get("instance-id"));
        }
    }

    @Test
    void downWhileMongoDbIsUnreachable() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        Map<String, String> settings = Map.of("mongolock.uri", "mongodb://127.0.0.1:" + closedPort,
                "mongolock.database", "nowhere", "mongolock.store-timeout", "PT0.3S");
        try (WeldContainer node = WeldNodes.weld("unready", settings)
                .addExtension(new ReadinessCheckRegistration()).initialize()) {
            HealthCheckResponse response = readiness(node);
            assertEquals(HealthCheckResponse.Status.DOWN, response.getStatus());
            assertTrue(response.getData().orElseThrow().containsKey("push-wake-up"), response.getData().toString());
        }
    }
}
