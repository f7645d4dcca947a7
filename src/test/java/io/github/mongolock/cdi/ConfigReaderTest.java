package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/**
 * The configuration as a Quarkus build sees it: a value the build cannot resolve yet is left for the startup,
 * while every value it can read is checked with the usual message.
 */
class ConfigReaderTest {

    /** A configuration that cannot expand the value of {@code mongolock.uri}, as SmallRye Config can fail to. */
    private static final Config CONFIG = unexpandable(WeldNodes.config(Map.of(
            "mongolock.lease-time", "thirty seconds",
            "mongolock.wait-time", "PT2S")), "mongolock.uri");

    private static Config unexpandable(Config readable, String key) {
        return (Config) Proxy.newProxyInstance(Config.class.getClassLoader(), new Class<?>[] {Config.class}, (proxy, method, args) -> {
            if (method.getName().equals("getOptionalValue") && key.equals(args[0])) {
                throw new NoSuchElementException("could not expand ${MONGO_URL}");
            }
            try {
                return method.invoke(readable, args);
            } catch (InvocationTargetException failed) {
                throw failed.getCause();
            }
        });
    }

    @Test
    void whileBuildingAnUnresolvableValueIsLeftForTheStartup() {
        List<String> problems = new ArrayList<>();
        ConfigReader building = ConfigReader.whileBuilding(CONFIG);
        assertEquals(Optional.empty(), building.text("mongolock.uri", problems));
        assertEquals(Optional.empty(), building.lease("mongolock.lease-time", problems));
        assertEquals(Optional.of(Duration.ofSeconds(2)), building.waitTime("mongolock.wait-time", problems));
        assertEquals(List.of("MONGOLOCK-CDI-001: mongolock.lease-time = \"thirty seconds\" is not an ISO-8601 duration:"
                + " write e.g. PT5S, PT2M or PT0.5S."), problems);
    }

    @Test
    void atStartupAnUnresolvableValueIsAProblem() {
        List<String> problems = new ArrayList<>();
        assertEquals(Optional.empty(), new ConfigReader(CONFIG).text("mongolock.uri", problems));
        assertEquals(1, problems.size(), problems.toString());
        assertEquals("MONGOLOCK-CDI-015: Configuration key mongolock.uri could not be read: could not expand ${MONGO_URL}",
                problems.get(0));
    }
}
