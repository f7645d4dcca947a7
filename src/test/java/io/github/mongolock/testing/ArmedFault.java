package io.github.mongolock.testing;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A one-shot fault of {@link ReplicaSetFaults}, armed until the first command it applies to: a reply to lose, a
 * write to replay, or an election to start. Thread-safe.
 */
public final class ArmedFault {

    /** What it does to the command it hits. */
    public enum Kind {
        /** The command is applied; its answer is dropped and the connection reset (outcome unknown). */
        LOSE_REPLY,
        /** As {@link #LOSE_REPLY}, and an election (no stale reads) follows at once: the write is rolled back. */
        LOSE_REPLY_THEN_ELECT,
        /** A write MongoDB would apply twice (no transaction number) is applied twice; the second answer is delivered. */
        REPLAY,
        /** An election, just before the command is forwarded: the command and what follows see its effects. */
        ELECTION
    }

    private final Kind kind;
    private final Predicate<WireCommand> which;
    private final StaleWindow window;
    private final Consumer<ArmedFault> fireNow;
    private final AtomicBoolean armed = new AtomicBoolean(true);
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile WireCommand hit;
    private volatile long happenedAtNanos;

    ArmedFault(Kind kind, Predicate<WireCommand> which, StaleWindow window, Consumer<ArmedFault> fireNow) {
        this.kind = kind;
        this.which = which;
        this.window = window;
        this.fireNow = fireNow;
    }

    public Kind kind() {
        return kind;
    }

    /** The election's window (for the other kinds, {@link StaleWindow#NONE}). */
    StaleWindow window() {
        return window;
    }

    /** Whether {@code command} is the one: it matches and the fault was still armed (then it is no longer). */
    boolean claim(WireCommand command) {
        return armed.get() && which.test(command) && armed.compareAndSet(true, false);
    }

    /** Claims the fault for no command ({@link #fireNow}, {@link #cancel}). */
    boolean claim() {
        return armed.compareAndSet(true, false);
    }

    /** The fault happened, to {@code command} (null: fired without one). */
    void done(WireCommand command) {
        hit = command;
        happenedAtNanos = System.nanoTime();
        done.countDown();
    }

    /** Whether it happened within {@code timeout}. */
    public boolean awaitHit(Duration timeout) throws InterruptedException {
        return done.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    public boolean happened() {
        return done.getCount() == 0;
    }

    /** When it happened ({@link System#nanoTime()}; for an election, once done), or 0 before. */
    public long happenedAtNanos() {
        return happened() ? happenedAtNanos : 0;
    }

    /** The command it hit, once it happened to one. */
    public Optional<WireCommand> command() {
        return Optional.ofNullable(hit);
    }

    /** An election not started yet starts now; returns once it is done. Any other kind: {@link IllegalStateException}. */
    public void fireNow() {
        if (kind != Kind.ELECTION) {
            throw new IllegalStateException("only an election can be started at will, not " + kind);
        }
        fireNow.accept(this);
    }

    /** Disarms it; returns whether it was still armed. */
    public boolean cancel() {
        return claim();
    }

    @Override
    public String toString() {
        return kind + (happened() ? " (hit " + hit + ")" : armed.get() ? " (armed)" : " (under way or cancelled)");
    }
}
