package io.ringbus.core.internal.filter;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a JSON body (UTF-8 bytes or text) with jackson-core's streaming parser into the maps,
 * lists and scalars a body policy tests, keeping only what lies on the policy's paths
 * ({@link BodyPaths}). Numbers become {@code Double}s read by {@link DecimalText}, as the
 * policy's own numbers are.
 *
 * <p>Threading: static; the parser factory is thread-safe.
 */
final class JsonBodyReader {
    private JsonBodyReader() {
    }

    /**
     * @param payload a message payload
     * @param paths   what the policy reads
     * @return the body as a map, or {@code null} when the payload is not a JSON object given as a
     *         {@code Map}, {@code byte[]} (UTF-8) or {@code CharSequence}
     */
    static Map<?, ?> read(Object payload, BodyPaths paths) {
        if (payload instanceof Map<?, ?> map) {
            return map;
        }
        try {
            if (payload instanceof byte[] bytes) {
                try (JsonParser parser = PolicyJson.FACTORY.createParser(bytes)) {
                    return read(parser, paths);
                }
            }
            if (payload instanceof CharSequence text) {
                try (JsonParser parser = PolicyJson.FACTORY.createParser(text.toString())) {
                    return read(parser, paths);
                }
            }
        } catch (IOException | RuntimeException notJson) {
            // Invalid JSON (or a parser limit: jackson's StreamReadConstraints) does not match.
            return null;
        }
        return null;
    }

    private static Map<?, ?> read(JsonParser parser, BodyPaths paths) throws IOException {
        if (parser.nextToken() != JsonToken.START_OBJECT) {
            return null;
        }
        Map<String, Object> body = object(parser, paths);
        // Trailing content makes the body invalid JSON; reading it finds out.
        return parser.nextToken() == null ? body : null;
    }

    private static Map<String, Object> object(JsonParser parser, BodyPaths paths) throws IOException {
        Map<String, Object> object = new HashMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            BodyPaths child = paths.child(name);
            JsonToken token = parser.nextToken();
            if (child == null) {
                parser.skipChildren();
            } else {
                object.put(name, value(parser, token, child));
            }
        }
        return object;
    }

    private static Object value(JsonParser parser, JsonToken token, BodyPaths paths) throws IOException {
        return switch (token) {
            case START_OBJECT -> {
                if (paths.hasChildren()) {
                    yield object(parser, paths);
                }
                parser.skipChildren();
                yield Map.of();
            }
            case START_ARRAY -> {
                List<Object> array = new ArrayList<>();
                JsonToken element;
                while ((element = parser.nextToken()) != JsonToken.END_ARRAY) {
                    array.add(value(parser, element, paths));
                }
                yield array;
            }
            case VALUE_STRING -> parser.getText();
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> DecimalText.parse(parser.getText());
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            default -> null;
        };
    }
}
