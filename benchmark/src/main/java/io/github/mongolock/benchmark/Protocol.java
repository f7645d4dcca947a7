package io.github.mongolock.benchmark;

/** The line protocol between the benchmark and the JVMs it forks (one command or reply per line). */
final class Protocol {

    /** Child to parent, once: {@code PORT <port>} (stand-in) or {@code READY} (worker, probe). */
    static final String PORT = "PORT";
    static final String READY = "READY";
    /** Child to parent: {@code RESULT <key=value> ...}. */
    static final String RESULT = "RESULT";
    /** Child to parent: {@code ERROR <message>}; the benchmark stops. */
    static final String ERROR = "ERROR";

    private Protocol() {
    }
}
