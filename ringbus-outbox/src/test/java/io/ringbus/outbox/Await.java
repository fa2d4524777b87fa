package io.ringbus.outbox;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition, failing with a description after a generous bound. */
final class Await {
    private Await() {
    }

    static void until(String what, BooleanSupplier condition) {
        until(what, Duration.ofSeconds(30), condition);
    }

    static void until(String what, Duration bound, BooleanSupplier condition) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + bound + " waiting for: " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what);
            }
        }
    }
}
