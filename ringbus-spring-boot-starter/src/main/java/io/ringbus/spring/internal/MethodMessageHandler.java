package io.ringbus.spring.internal;

import io.ringbus.core.Client;
import io.ringbus.core.Headers;
import io.ringbus.core.Message;
import io.ringbus.core.MessageHandler;
import io.ringbus.spring.RingbusListenerErrorHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.ReflectionUtils;

/**
 * Calls one {@code @RingbusListener} method for each message: builds the arguments (message,
 * headers, converted payload), invokes, publishes a non-null return value to the reply subject,
 * and hands every failure to the {@link RingbusListenerErrorHandler}. Never throws but
 * {@link VirtualMachineError}, so the broker's loop keeps running and nothing fails silently.
 */
public final class MethodMessageHandler implements MessageHandler {

    private static final Logger LOG = LoggerFactory.getLogger(MethodMessageHandler.class);

    /** What each parameter receives. */
    private enum Kind { MESSAGE, HEADERS, PAYLOAD }

    private final Object bean;
    private final Method method;
    private final String pattern;
    private final Kind[] kinds;
    private final Class<?>[] rawTypes;
    private final Type[] genericTypes;
    private final boolean replies;
    private final Client replyClient;
    private final PayloadConverter converter;
    private final RingbusListenerErrorHandler errorHandler;

    /**
     * @param bean         the bean to call
     * @param method       the method, made accessible here
     * @param pattern      the subscription's subject pattern
     * @param replyClient  where replies are published
     * @param converter    payload conversion
     * @param errorHandler where failures go
     * @throws IllegalStateException naming the method when it has more than one payload parameter
     */
    public MethodMessageHandler(Object bean, Method method, String pattern, Client replyClient,
                                PayloadConverter converter, RingbusListenerErrorHandler errorHandler) {
        this.bean = bean;
        this.method = method;
        this.pattern = pattern;
        this.replyClient = replyClient;
        this.converter = converter;
        this.errorHandler = errorHandler;
        this.rawTypes = method.getParameterTypes();
        this.genericTypes = method.getGenericParameterTypes();
        this.kinds = new Kind[rawTypes.length];
        int payloads = 0;
        for (int i = 0; i < rawTypes.length; i++) {
            if (rawTypes[i] == Message.class) {
                kinds[i] = Kind.MESSAGE;
            } else if (rawTypes[i] == Headers.class) {
                kinds[i] = Kind.HEADERS;
            } else {
                kinds[i] = Kind.PAYLOAD;
                payloads++;
            }
        }
        if (payloads > 1) {
            throw new IllegalStateException("@RingbusListener method " + method
                    + " has " + payloads + " payload parameters: at most one besides Message and Headers");
        }
        this.replies = method.getReturnType() != void.class;
        ReflectionUtils.makeAccessible(method);
    }

    @Override
    public void onMessage(Message message) {
        try {
            invoke(message);
        } catch (Throwable e) {
            failed(e, message);
        }
    }

    /**
     * Calls the method and publishes its reply, throwing what it throws (unwrapped): for a caller
     * that must see the failure (a transaction to roll back) before {@link #failed} reports it.
     *
     * @param message the message
     * @throws Throwable the method's exception, or a conversion's
     */
    public void invoke(Message message) throws Throwable {
        Object result;
        try {
            result = method.invoke(bean, arguments(message));
        } catch (InvocationTargetException e) {
            throw e.getCause() == null ? e : e.getCause();
        }
        if (replies && result != null && message.replyTo() != null) {
            replyClient.publish(message.replyTo(), converter.toReply(result, message.payload() instanceof byte[]));
        }
    }

    private Object[] arguments(Message message) {
        Object[] args = new Object[kinds.length];
        for (int i = 0; i < kinds.length; i++) {
            args[i] = switch (kinds[i]) {
                case MESSAGE -> message;
                case HEADERS -> message.headers();
                case PAYLOAD -> converter.fromPayload(message.payload(), rawTypes[i], genericTypes[i]);
            };
        }
        return args;
    }

    /**
     * Hands a failure to the error handler (never throws but {@link VirtualMachineError}).
     *
     * @param error   what the method or its conversion threw
     * @param message the message
     */
    public void failed(Throwable error, Message message) {
        if (error instanceof VirtualMachineError fatal) {
            throw fatal;
        }
        try {
            errorHandler.handleError(error, message, pattern, method);
        } catch (RuntimeException | LinkageError handlerFailure) {
            // the error handler must not throw (its contract); keep both, keep the loop running
            handlerFailure.addSuppressed(error);
            LOG.error("RingbusListenerErrorHandler threw while handling a failure of {}", method, handlerFailure);
        }
    }

    /** @return the listener method */
    public Method method() {
        return method;
    }
}
