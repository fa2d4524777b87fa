package io.ringbus.server;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition with a generous deadline, so that tests need no fixed sleeps and a
 * condition that never comes true fails the test with a description instead of hanging it.
 * The deadline is a bound on a hang, never a speed assertion.
 */
final class Await {
    /** Far above anything the suite needs on a loaded 2-core machine. */
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Await() {
    }

    static void until(String what, BooleanSupplier condition) {
        until(what, condition, () -> "");
    }

    static void until(String what, BooleanSupplier condition, Supplier<?> state) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + TIMEOUT + " waiting until " + what + "; state: "
                        + state.get());
            }
            LockSupport.parkNanos(1_000_000);
            if (Thread.interrupted()) {
                throw new AssertionError("interrupted while waiting until " + what);
            }
        }
    }

    /**
     * Gives a wrong implementation the chance to do what it must not (deliver once more, deliver
     * past an UNSUB max) before the test checks that it did not. Never needed for a pass.
     */
    static void grace() {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(150));
    }
}
