package io.ringbus.server.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the standalone server does with a {@link VirtualMachineError} (an
 * {@link OutOfMemoryError} above all): log it at ERROR and halt with a non-zero status, rather
 * than live on with dead threads (a dead accept or I/O thread would leave clients without INFO
 * and a SIGTERM that stops nothing). Installed only by {@code RingbusServerMain}; an embedding
 * application keeps its own policy, and the server then only logs.
 */
public final class FatalErrors {
    /** Exit status after a fatal error. */
    public static final int EXIT_STATUS = 3;
    private static final Logger LOG = LoggerFactory.getLogger(FatalErrors.class);
    private static volatile boolean halting;

    private FatalErrors() {
    }

    /** Makes every thread's uncaught {@link VirtualMachineError} halt the process. */
    public static void install() {
        halting = true;
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, error) -> {
            if (!check(error, thread.getName()) && previous != null) {
                previous.uncaughtException(thread, error);
            } else if (previous == null) {
                LOG.error("thread {} died", thread.getName(), error);
            }
        });
    }

    /**
     * Halts the process, once installed, when {@code error} is (or is caused by) a VirtualMachineError.
     *
     * @param where the thread or component that caught it, for the log
     * @return {@code false} when it is not fatal (or not installed: it is then only logged)
     */
    public static boolean check(Throwable error, String where) {
        Throwable fatal = error;
        while (fatal != null && !(fatal instanceof VirtualMachineError)) {
            fatal = fatal.getCause();
        }
        if (fatal == null) {
            return false;
        }
        try {
            LOG.error("fatal error in {}: {}; the server stops with status {}", where, fatal, EXIT_STATUS, fatal);
        } catch (Throwable cannotLog) {
            // Out of memory even for logging: halt all the same.
        }
        if (halting) {
            Runtime.getRuntime().halt(EXIT_STATUS);
        }
        return true;
    }
}
