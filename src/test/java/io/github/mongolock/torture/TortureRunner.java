package io.github.mongolock.torture;

import io.github.mongolock.testing.TestMongo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs every {@link Scenario} of a {@link TortureConfig} one after the other against one MongoDB
 * and prints the summary table. Histories and worker consoles are kept under {@code target/torture/}.
 */
final class TortureRunner {

    private TortureRunner() {
    }

    static List<ScenarioResult> runAll(TortureConfig config, TestMongo mongo, List<Scenario> scenarios) {
        Path root = Path.of("target", "torture", config.name() + "-" + System.currentTimeMillis());
        List<ScenarioResult> results = new ArrayList<>();
        for (Scenario scenario : scenarios) {
            ScenarioResult result = new ScenarioRun(scenario, config, mongo, root.resolve(scenario.name().toLowerCase()))
                    .run();
            results.add(result);
            System.out.println("[torture] " + scenario.title() + ": "
                    + (scenario.permits() ? result.permits() : result.report()));
        }
        System.out.println(SummaryTable.render(config, results));
        return results;
    }
}
