package io.ringbus.core.internal.filter;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Filter-policy JSON as a small tree, read with jackson-core's streaming parser and written back
 * compact (the normalized text a filter shows). Objects are {@code LinkedHashMap}s in document
 * order, arrays {@code ArrayList}s, numbers {@link NumberToken}s keeping their text, and strings,
 * booleans and {@code null} themselves. Reading enforces the nesting limit and rejects duplicate
 * keys, naming the JSON path.
 *
 * <p>Threading: static; the factory is thread-safe.
 */
final class PolicyJson {
    /**
     * Shared by the compiler and {@link JsonBodyReader}. Its buffers are recycled through a
     * concurrent deque, not jackson's default thread-local pool: body filters run on publishing
     * threads, which may be virtual (STYLE.md rule 11).
     */
    static final JsonFactory FACTORY = JsonFactory.builder()
            .recyclerPool(JsonRecyclerPools.newConcurrentDequePool())
            .build();

    /** A JSON number as written, with its value as {@link DecimalText} reads it. */
    record NumberToken(String text, double value) {
    }

    private PolicyJson() {
    }

    /**
     * Reads one JSON value, which must be all of {@code json}.
     *
     * @param json     the text
     * @param maxDepth the deepest nesting of objects and arrays allowed
     * @return the tree
     * @throws IllegalArgumentException for invalid JSON (with line and column), nesting deeper than
     *                                  {@code maxDepth} or a duplicate key (with the JSON path)
     */
    static Object read(String json, int maxDepth) {
        try (JsonParser parser = FACTORY.createParser(json)) {
            JsonToken token = parser.nextToken();
            if (token == null) {
                throw FilterPolicyCompiler.error("the policy is empty", "$");
            }
            Object tree = read(parser, token, "$", 0, maxDepth);
            if (parser.nextToken() != null) {
                throw invalid(parser.currentTokenLocation(), "content after the policy object");
            }
            return tree;
        } catch (JsonProcessingException e) {
            throw invalid(e.getLocation(), e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException("reading a String cannot fail", e);
        }
    }

    private static IllegalArgumentException invalid(JsonLocation at, String why) {
        String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
        // jackson names the source in nested locations ("[Source: REDACTED (...); line: 1, ...]"): noise here.
        String reason = why == null ? "" : why.replaceAll("\\[Source: [^;]*; ", "[");
        return new IllegalArgumentException("filter policy: invalid JSON" + where + ": " + reason);
    }

    private static Object read(JsonParser parser, JsonToken token, String path, int depth, int maxDepth)
            throws IOException {
        switch (token) {
            case START_OBJECT -> {
                checkDepth(path, depth, maxDepth);
                Map<String, Object> object = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String key = parser.currentName();
                    String keyPath = path + member(key);
                    if (object.containsKey(key)) {
                        throw FilterPolicyCompiler.error("duplicate key \"" + key + "\"", keyPath);
                    }
                    object.put(key, read(parser, parser.nextToken(), keyPath, depth + 1, maxDepth));
                }
                return object;
            }
            case START_ARRAY -> {
                checkDepth(path, depth, maxDepth);
                List<Object> array = new ArrayList<>();
                JsonToken element;
                while ((element = parser.nextToken()) != JsonToken.END_ARRAY) {
                    array.add(read(parser, element, path + "[" + array.size() + "]", depth + 1, maxDepth));
                }
                return array;
            }
            case VALUE_STRING -> {
                return parser.getText();
            }
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
                String text = parser.getText();
                return new NumberToken(text, DecimalText.parse(text));
            }
            case VALUE_TRUE -> {
                return Boolean.TRUE;
            }
            case VALUE_FALSE -> {
                return Boolean.FALSE;
            }
            case VALUE_NULL -> {
                return null;
            }
            default -> throw invalid(parser.currentLocation(), "unexpected " + token);
        }
    }

    private static void checkDepth(String path, int depth, int maxDepth) {
        if (depth >= maxDepth) {
            throw FilterPolicyCompiler.error("nesting deeper than the limit of " + maxDepth, path);
        }
    }

    /**
     * @param key an object key
     * @return its JSON-path step: {@code .name} for a plain name, else {@code ["na me"]}
     */
    static String member(String key) {
        boolean plain = !key.isEmpty();
        for (int i = 0; i < key.length() && plain; i++) {
            char c = key.charAt(i);
            plain = Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '$';
        }
        return plain ? "." + key : "[" + write(key) + "]";
    }

    /**
     * @param tree a tree as {@link #read} gives, or a part of one
     * @return it as compact JSON
     */
    static String write(Object tree) {
        StringWriter out = new StringWriter();
        try (JsonGenerator generator = FACTORY.createGenerator(out)) {
            write(generator, tree);
        } catch (IOException e) {
            throw new UncheckedIOException("writing to a StringWriter cannot fail", e);
        }
        return out.toString();
    }

    private static void write(JsonGenerator generator, Object tree) throws IOException {
        if (tree instanceof Map<?, ?> object) {
            generator.writeStartObject();
            for (Map.Entry<?, ?> entry : object.entrySet()) {
                generator.writeFieldName(String.valueOf(entry.getKey()));
                write(generator, entry.getValue());
            }
            generator.writeEndObject();
        } else if (tree instanceof List<?> array) {
            generator.writeStartArray();
            for (Object element : array) {
                write(generator, element);
            }
            generator.writeEndArray();
        } else if (tree instanceof NumberToken number) {
            generator.writeNumber(number.text());
        } else if (tree instanceof Boolean bool) {
            generator.writeBoolean(bool);
        } else if (tree == null) {
            generator.writeNull();
        } else {
            generator.writeString(tree.toString());
        }
    }
}
