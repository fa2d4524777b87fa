package io.ringbus.spring.internal;

import java.lang.reflect.Type;
import java.util.Objects;
import tools.jackson.databind.ObjectMapper;

/**
 * A {@link PayloadConverter} that reads and writes JSON with Jackson 3 (the application's
 * {@code JsonMapper} bean when there is one). Loaded only when {@code tools.jackson.databind} is on
 * the classpath.
 */
public class JacksonPayloadConverter extends PayloadConverter {

    private final ObjectMapper mapper;

    /** @param mapper the mapper to read and write with */
    public JacksonPayloadConverter(ObjectMapper mapper) {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
    }

    @Override
    protected Object readJson(Object payload, Class<?> raw, Type generic) {
        var type = mapper.getTypeFactory().constructType(generic);
        return payload instanceof byte[] bytes ? mapper.readValue(bytes, type)
                : mapper.readValue(payload.toString(), type);
    }

    @Override
    protected byte[] writeJson(Object value) {
        return mapper.writeValueAsBytes(value);
    }
}
