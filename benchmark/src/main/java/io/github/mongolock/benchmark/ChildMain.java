package io.github.mongolock.benchmark;

/** What every JVM the benchmark forks for one job does first: end when the benchmark is gone. */
final class ChildMain {

    private ChildMain() {
    }

    /**
     * Halts this JVM when its standard input ends (the benchmark closed it, or died). Only for children that
     * take no commands on their input; the others end when their command loop reads the end.
     */
    static void exitWhenParentGoes() {
        Thread parentWatch = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // nothing is sent; end of input means the benchmark is gone
                }
            } catch (java.io.IOException gone) {
                // same as end of input
            }
            Runtime.getRuntime().halt(1);
        }, "parent-watch");
        parentWatch.setDaemon(true);
        parentWatch.start();
    }
}
