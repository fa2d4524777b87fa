package io.ringbus.testkit;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition with a generous deadline, so that tests need no fixed sleeps and a
 * condition that never comes true fails the test with a description instead of hanging it. The
 * deadline is a bound on a hang, never a speed assertion.
 *
 * <p>Threading: static methods without state; each call blocks its caller only.
 */
public final class Await {
    /** Far above anything the suite needs on a loaded 2-core machine. */
    public static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(150);

    private Await() {
    }

    /**
     * Waits until {@code condition} holds.
     *
     * @param what what is awaited, for the failure message
     * @throws AssertionError naming {@code what} after {@link #TIMEOUT}, or when interrupted
     */
    public static void until(String what, BooleanSupplier condition) {
        until(what, TIMEOUT, condition, () -> "");
    }

    /**
     * Waits until {@code condition} holds, or fails after {@code bound}.
     *
     * @throws AssertionError naming {@code what} after {@code bound}, or when interrupted
     */
    public static void until(String what, Duration bound, BooleanSupplier condition) {
        until(what, bound, condition, () -> "");
    }

    /**
     * Waits until {@code condition} holds; a failure message also shows {@code state}.
     *
     * @throws AssertionError naming {@code what} and {@code state} after {@link #TIMEOUT}
     */
    public static void until(String what, BooleanSupplier condition, Supplier<?> state) {
        until(what, TIMEOUT, condition, state);
    }

    private static void until(String what, Duration bound, BooleanSupplier condition, Supplier<?> state) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                String shown = String.valueOf(state.get());
                throw new AssertionError("timed out after " + bound + " waiting for: " + what
                        + (shown.isEmpty() ? "" : "; state: " + shown));
            }
            LockSupport.parkNanos(POLL_NANOS);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what);
            }
        }
    }

    /**
     * Waits until {@code latch} reaches zero.
     *
     * @throws AssertionError naming {@code what} and the latch's count after {@link #TIMEOUT}
     */
    public static void latch(CountDownLatch latch, String what) {
        try {
            if (!latch.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("timed out after " + TIMEOUT + " waiting for: " + what + "; latch count "
                        + latch.getCount());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for: " + what, e);
        }
    }

    /**
     * For handlers that must block until the test releases them; never throws.
     *
     * @return whether the latch reached zero within {@link #TIMEOUT}
     */
    public static boolean quietly(CountDownLatch latch) {
        try {
            return latch.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Gives a wrong implementation the chance to do what it must not (deliver once more, deliver
     * past an UNSUB max, run one more handler at once) before the test checks that it did not.
     * Never needed for a pass.
     */
    public static void grace() {
        LockSupport.parkNanos(GRACE_NANOS);
    }
}
