package io.ringbus.testkit;

import java.lang.reflect.Method;

/**
 * The heap bytes the current thread has allocated, from HotSpot's per-thread counter
 * ({@code com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes}), for tests that prove a
 * path allocates nothing. Read by reflection, so that a module under test needs not read
 * {@code java.management}; a test assumes {@link #supported()} first.
 *
 * <p>Threading: static; each call reads the calling thread's counter.
 */
public final class AllocatedBytes {
    private static final Object THREADS = threadBean();
    private static final Method CURRENT = currentMethod();

    private AllocatedBytes() {
    }

    /** @return whether this JVM counts allocated bytes per thread */
    public static boolean supported() {
        return THREADS != null && CURRENT != null;
    }

    /**
     * @return the bytes the current thread has allocated so far
     * @throws IllegalStateException when not {@link #supported()}
     */
    public static long currentThread() {
        if (!supported()) {
            throw new IllegalStateException("this JVM has no com.sun.management.ThreadMXBean");
        }
        try {
            return (long) CURRENT.invoke(THREADS);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("reading the thread's allocated bytes failed", e);
        }
    }

    private static Object threadBean() {
        try {
            return Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
    }

    private static Method currentMethod() {
        try {
            return Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
    }
}
