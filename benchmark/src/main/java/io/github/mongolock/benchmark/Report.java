package io.github.mongolock.benchmark;

import java.util.ArrayList;
import java.util.List;

/** Collects the markdown the benchmark prints at the end (and writes to target/benchmark-results.md). */
final class Report {

    private final StringBuilder text = new StringBuilder();
    private final List<String> verdicts = new ArrayList<>();

    void heading(String title) {
        text.append("\n### ").append(title).append("\n\n");
    }

    void line(String line) {
        text.append(line).append('\n');
    }

    void table(List<String> header, List<List<String>> rows) {
        text.append("| ").append(String.join(" | ", header)).append(" |\n");
        text.append("|").append("---|".repeat(header.size())).append('\n');
        for (List<String> row : rows) {
            text.append("| ").append(String.join(" | ", row)).append(" |\n");
        }
        text.append('\n');
    }

    /** A target checked against this run's numbers: met, missed (with by how much) or not measured. */
    void target(String target, String measured, Boolean met) {
        verdicts.add("| " + target + " | " + measured + " | " + (met == null ? "not measured" : met ? "met" : "**missed**") + " |");
    }

    String render() {
        StringBuilder all = new StringBuilder(text);
        all.append("\n### Targets\n\n| target | this run | verdict |\n|---|---|---|\n");
        verdicts.forEach(verdict -> all.append(verdict).append('\n'));
        return all.toString();
    }
}
