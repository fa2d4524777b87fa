package io.ringbus.spring.internal;

import io.ringbus.core.Message;
import io.ringbus.spring.RingbusListenerErrorHandler;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default {@link RingbusListenerErrorHandler}: logs at ERROR with the subject and the method,
 * counts, and tells an optional meter (the auto-configuration passes one that increments
 * {@code ringbus.spring.listener.errors{pattern}} when there is a MeterRegistry).
 */
public class LoggingListenerErrorHandler implements RingbusListenerErrorHandler {

    private static final Logger LOG = LoggerFactory.getLogger(LoggingListenerErrorHandler.class);

    private final LongAdder errors = new LongAdder();
    private final Consumer<String> meter;

    /** @param meter told the listener's pattern on every error; may be {@code null} */
    public LoggingListenerErrorHandler(Consumer<String> meter) {
        this.meter = meter;
    }

    @Override
    public void handleError(Throwable error, Message message, String pattern, Method listener) {
        errors.increment();
        LOG.error("@RingbusListener {}.{} failed on subject '{}' (pattern '{}')",
                listener.getDeclaringClass().getSimpleName(), listener.getName(), message.subject(), pattern, error);
        if (meter != null) {
            meter.accept(pattern);
        }
    }

    /** @return the errors handled so far */
    public long errors() {
        return errors.sum();
    }
}
