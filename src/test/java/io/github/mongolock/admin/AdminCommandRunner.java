package io.github.mongolock.admin;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Runs the operator's command in-process against one database, as an operator would from a shell with
 * {@code --uri} and {@code --database}, and keeps what the last run printed to each stream.
 */
final class AdminCommandRunner {

    private final String uri;
    private final String database;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    AdminCommandRunner(String uri, String database) {
        this.uri = uri;
        this.database = database;
    }

    /** @return the command's exit code */
    int run(String... args) {
        out.reset();
        err.reset();
        String[] all = new String[args.length + 4];
        System.arraycopy(args, 0, all, 0, args.length);
        System.arraycopy(new String[] {"--uri", uri, "--database", database}, 0, all, args.length, 4);
        return LockAdminCommand.run(all, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
