package io.ringbus.spring.internal;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

/**
 * Converts payloads between what the broker carries and what a listener method takes or returns.
 * An in-process object of the wanted type passes as is; {@code byte[]} and {@code String} (what
 * network clients send) pass as is to those types, and otherwise go through JSON when Jackson is
 * present ({@link JacksonPayloadConverter}).
 */
public class PayloadConverter {

    /**
     * Converts a received payload to a parameter's type.
     *
     * @param payload the message payload, may be {@code null}
     * @param raw     the parameter's class
     * @param generic the parameter's generic type
     * @return the argument
     * @throws IllegalArgumentException naming both types when the payload cannot be converted
     */
    public Object fromPayload(Object payload, Class<?> raw, Type generic) {
        if (payload == null || raw.isInstance(payload)) {
            return payload;
        }
        if (raw == String.class && payload instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (raw == byte[].class && payload instanceof CharSequence text) {
            return text.toString().getBytes(StandardCharsets.UTF_8);
        }
        if (payload instanceof byte[] || payload instanceof CharSequence) {
            return readJson(payload, raw, generic);
        }
        throw new IllegalArgumentException("cannot convert a payload of type " + payload.getClass().getName()
                + " to the listener's parameter type " + generic.getTypeName());
    }

    /**
     * Converts a listener's return value to a reply payload: as is for an in-process requester,
     * bytes for a network one (its request payload was {@code byte[]}).
     *
     * @param value         the return value, not {@code null}
     * @param networkPeer   whether the request came with a {@code byte[]} payload
     * @return the reply payload
     */
    public Object toReply(Object value, boolean networkPeer) {
        if (!networkPeer || value instanceof byte[]) {
            return value;
        }
        if (value instanceof CharSequence text) {
            return text.toString().getBytes(StandardCharsets.UTF_8);
        }
        return writeJson(value);
    }

    /**
     * Reads JSON; this class has no JSON reader and refuses.
     *
     * @param payload bytes or text
     * @param raw     the wanted class
     * @param generic the wanted type
     * @return never
     */
    protected Object readJson(Object payload, Class<?> raw, Type generic) {
        throw new IllegalArgumentException("cannot convert a " + payload.getClass().getSimpleName()
                + " payload to " + generic.getTypeName() + ": no Jackson (tools.jackson.databind) on the classpath");
    }

    /**
     * Writes JSON; this class has no JSON writer and refuses.
     *
     * @param value the value
     * @return never
     */
    protected byte[] writeJson(Object value) {
        throw new IllegalArgumentException("cannot send a " + value.getClass().getName()
                + " reply to a network requester: no Jackson (tools.jackson.databind) on the classpath");
    }
}
