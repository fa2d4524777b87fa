package io.ringbus.spring;

import io.ringbus.core.Message;
import java.lang.reflect.Method;

/**
 * Receives what a {@link RingbusListener} method threw, or why its payload could not be
 * converted. Define a bean of this type to replace the default, which logs at ERROR and counts
 * {@code ringbus.spring.listener.errors} (tagged with the listener's subject pattern) in the
 * application's MeterRegistry.
 *
 * <p>Called on the thread that ran the listener; it must not throw (what it throws is logged and
 * dropped) and should not block.
 */
@FunctionalInterface
public interface RingbusListenerErrorHandler {

    /**
     * Handles one failed listener call.
     *
     * @param error    what was thrown (the cause, not a reflection wrapper)
     * @param message  the message the listener was given; in EVENT_LOOP mode valid only during
     *                 this call
     * @param pattern  the listener's subject pattern
     * @param listener the listener method
     */
    void handleError(Throwable error, Message message, String pattern, Method listener);
}
