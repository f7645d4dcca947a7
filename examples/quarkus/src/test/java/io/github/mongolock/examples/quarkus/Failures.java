package io.github.mongolock.examples.quarkus;

import java.util.ArrayList;
import java.util.List;

/** The messages of a failure, its causes and suppressed exceptions, to look for mongolock's in. */
final class Failures {

    private Failures() {
    }

    static String messages(Throwable failure) {
        List<String> messages = new ArrayList<>();
        collect(failure, messages, 0);
        return String.join("\n", messages);
    }

    private static void collect(Throwable failure, List<String> messages, int depth) {
        if (failure == null || depth > 20) {
            return;
        }
        messages.add(failure.getClass().getName() + ": " + failure.getMessage());
        for (Throwable suppressed : failure.getSuppressed()) {
            collect(suppressed, messages, depth + 1);
        }
        collect(failure.getCause(), messages, depth + 1);
    }
}
