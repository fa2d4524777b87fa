package io.ringbus.core.internal;

import io.ringbus.core.Headers;

/**
 * The one way into {@link Headers}' private constructor for a NATS header block: {@code Headers}
 * installs its factory here when it is initialized, and the wire codec
 * ({@link io.ringbus.core.wire.NatsHeaderBlock}) alone uses it. This package is not exported, so
 * no other module can install or call it.
 *
 * <p>Threading: installed once, by {@code Headers}' class initializer, which the JVM runs before
 * {@link #factory()} reads the field.
 */
public final class HeadersAccess {
    /** Makes headers that keep a NATS block as received. */
    @FunctionalInterface
    public interface Factory {
        /**
         * @param block the block, kept as is (not copied)
         * @return headers over it
         */
        Headers wrap(byte[] block);
    }

    /** Volatile, not locked: a lock held while {@code Headers} initializes could deadlock with its initializer. */
    private static volatile Factory factory;

    private HeadersAccess() {
    }

    /**
     * Called by {@code Headers}' static initializer.
     *
     * @param headersFactory its factory
     * @throws IllegalStateException when one is installed already
     */
    public static void install(Factory headersFactory) {
        if (factory != null) {
            throw new IllegalStateException("the Headers factory is installed already");
        }
        factory = headersFactory;
    }

    /** @return the factory, after initializing {@code Headers} if it is not yet */
    public static Factory factory() {
        // Reading a static field initializes Headers (once, by the JVM's rules), whose initializer installs the factory.
        Factory installed = Headers.EMPTY == null ? null : factory;
        if (installed == null) {
            throw new IllegalStateException("Headers did not install its factory");
        }
        return installed;
    }
}
