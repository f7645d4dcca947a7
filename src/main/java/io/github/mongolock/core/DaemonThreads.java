package io.github.mongolock.core;

import java.util.concurrent.ThreadFactory;

/** Names a manager's background thread and makes it a daemon, so it never keeps the JVM alive. */
record DaemonThreads(String name) implements ThreadFactory {

    @Override
    public Thread newThread(Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }
}
